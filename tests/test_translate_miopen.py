"""cuDNN -> MIOpen under --dnn miopen-hipify: calls whose MIOpen argument order differs
(`order:N=...` in rules/api/miopen_hipify.toml, hipport/translate/args.py)."""

from __future__ import annotations

import pytest

from hipport import rules as rulesmod
from hipport import translate
from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.source import SourceFile
from tests.conftest import port_below

CONFIG = Config(wave64=False, dnn="miopen-hipify")
HEAD = b"#include <miopen/miopen.h>\n"


@pytest.fixture(scope="module")
def rules() -> rulesmod.RuleSet:
    return rulesmod.for_config(CONFIG)


def port(rules: rulesmod.RuleSet, body: bytes) -> tuple[bytes, list[str]]:
    """The ported body (below a MIOpen include, so none is added) and its finding rules."""
    return port_below(HEAD, body, CONFIG, rules)


REORDERED = [
    pytest.param(b"cudnnConvolutionForward(h, a, xd, x, wd, w, cd, algo, ws, n, b, yd, y);",
                 b"miopenConvolutionForward(h, a, xd, x, wd, w, cd, algo, b, yd, y, ws, n);",
                 id="workspace-goes-last"),
    pytest.param(b"cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, a, xd, x, b, yd, y);",
                 b"miopenSoftmaxForward_V2(h, a, xd, x, b, yd, y, MIOPEN_SOFTMAX_ACCURATE, MIOPEN_SOFTMAX_MODE_CHANNEL);",
                 id="moved-arguments-keep-their-renames"),
    pytest.param(b"cudnnSoftmaxForward(h, alg, mode,\n                    a, xd, x,\n                    b, yd, y);",
                 b"miopenSoftmaxForward_V2(h, a, xd,\n                    x, b, yd,\n                    y, alg, mode);",
                 id="line-breaks-stay-in-place"),
    pytest.param(b"cudnnSetPooling2dDescriptor(p, CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 2, 2, 0, 0, 1, 1);",
                 b"miopenSet2dPoolingDescriptor(p, miopenPoolingMax, 2, 2, 0, 0, 1, 1);",
                 id="argument-miopen-lacks-is-dropped"),
    pytest.param(b"cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &n);",
                 b"miopenConvolutionForwardGetWorkSpaceSize(h, wd, xd, cd, yd, &n);",
                 id="swapped-and-dropped"),
    pytest.param(b"cudnnSetLRNDescriptor(l, 5, 1e-4, 0.75, 2.0);",
                 b"miopenSetLRNDescriptor(l, miopenLRNCrossChannel, 5, 1e-4, 0.75, 2.0);",
                 id="value-miopen-needs-is-inserted"),
    pytest.param(b"cudnnFindConvolutionForwardAlgorithmEx(h, xd, x, wd, w, cd, yd, y, 1, &k, &perf, ws, n);",
                 b"miopenFindConvolutionForwardAlgorithm(h, xd, x, wd, w, cd, yd, y, 1, &k, &perf, ws, n, true);",
                 id="value-miopen-needs-is-appended"),
    pytest.param(b"cudnnSetRNNDescriptor_v6(h, r, 64, 2, dd, CUDNN_LINEAR_INPUT, CUDNN_BIDIRECTIONAL, CUDNN_LSTM, algo, CUDNN_DATA_FLOAT);",
                 b"miopenSetRNNDescriptor_V2(r, 64, 2, dd, miopenRNNlinear, miopenRNNbidirection, miopenLSTM, miopenRNNwithBias, algo, miopenFloat);",
                 id="handle-dropped-and-bias-mode-inserted"),
    pytest.param(b"cudnnConvolutionForward(h, a, xd, x, wd, w, cd, algo, /* scratch */ ws, n, b, yd, y);",
                 b"miopenConvolutionForward(h, a, xd, x, wd, w, cd, algo, /* scratch */ b, yd, y, ws, n);",
                 id="comment-between-arguments-stays"),
    pytest.param(b"#define SM(a, x, b, y) cudnnSoftmaxForward(h, CUDNN_SOFTMAX_FAST, m, a, xd, x, b, yd, y)\n",
                 b"#define SM(a, x, b, y) miopenSoftmaxForward_V2(h, a, xd, x, b, yd, y, MIOPEN_SOFTMAX_FAST, m)\n",
                 id="in-a-macro-body"),
]


@pytest.mark.parametrize("before, after", REORDERED)
def test_reordered(rules: rulesmod.RuleSet, before: bytes, after: bytes) -> None:
    out, findings = port(rules, before)
    assert out == after
    assert "HP016" in findings and "HP001" not in findings


def test_other_argument_count_is_reported(rules: rulesmod.RuleSet) -> None:
    """A call that does not have cuDNN's argument count (a wrapper's overload, a macro) is not
    reordered: HP001 says to order it by hand."""
    body = b"cudnnSoftmaxForward(h, alg, mode, a, xd, x, b, yd);"
    out, findings = port(rules, body)
    assert out == b"miopenSoftmaxForward_V2(h, alg, mode, a, xd, x, b, yd);"
    assert "HP001" in findings


def test_default_dnn_leaves_reordered_calls_to_a_person() -> None:
    """Without miopen-hipify, the call keeps its cuDNN name and is reported (HP001)."""
    config = Config(wave64=False)
    body = b"cudnnConvolutionForward(h, a, xd, x, wd, w, cd, algo, ws, n, b, yd, y);\n"
    src = SourceFile("t.cu", HEAD + body)
    ctx = translate.run(src, config, rulesmod.for_config(config))
    kept, _ = resolve(ctx.edits)
    assert apply_edits(src.data, kept)[len(HEAD):] == body
    assert "HP001" in [f.rule for f in ctx.findings]


def _whole(text: bytes, config: Config) -> bytes:
    src = SourceFile("t.cpp", text)
    ctx = translate.run(src, config, rulesmod.for_config(config))
    kept, _ = resolve(ctx.edits)
    return apply_edits(src.data, kept)


GRAPH = (b"#include <cudnn.h>\n"
         b"void f(cudnnBackendDescriptor_t* d) {\n"
         b"  cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, d);\n"
         b"  cudnnBackendFinalize(*d);\n}\n")


@pytest.mark.parametrize("dnn", ["miopen", "miopen-hipify"])
def test_graph_api_defines_miopens_beta_api_once_before_the_includes(dnn: str) -> None:
    """MIOpen 6.x declares its backend (graph) API only under MIOPEN_BETA_API (the tables'
    `define`): a file that uses it defines the macro once, above every include."""
    out = _whole(GRAPH, Config(wave64=False, dnn=dnn, rocm="6.4"))
    assert out.startswith(b"#define MIOPEN_BETA_API 1\n#include <miopen/miopen.h>\n")
    assert out.count(b"MIOPEN_BETA_API") == 1


def test_beta_api_is_defined_only_where_needed() -> None:
    """A file without graph-API names gets no define; a file that defines it keeps its own."""
    plain = b"#include <cudnn.h>\nvoid f(cudnnHandle_t* h) { cudnnCreate(h); }\n"
    assert b"MIOPEN_BETA_API" not in _whole(plain, Config(wave64=False))
    own = b"#define MIOPEN_BETA_API\n" + GRAPH
    assert _whole(own, Config(wave64=False)).count(b"MIOPEN_BETA_API") == 1
