"""Unit tests of the translator pieces: names, macro bodies, includes, launches, argument
transforms, findings and edit resolution.

They run against a small mapping table written here (not rules/api/), so they test the
machinery, not the data: a table change cannot break them and they need no hipcc.
Parameter ids say why each input must (not) change.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tree_sitter import Node

from hipport import rules as rulesmod
from hipport import translate
from hipport.config import Config
from hipport.edits import apply_edits, resolve
from hipport.model import Edit
from hipport.source import SourceFile
from hipport.translate.includes import insertion_point

MINI_RUNTIME = """
family = "runtime"
title = "mini runtime"
since = "5.2"

[names]
cudaMalloc = { hip = "hipMalloc", kind = "function" }
cudaFree = { hip = "hipFree", kind = "function" }
cudaMemcpy = { hip = "hipMemcpy", kind = "function" }
cudaMemcpyHostToDevice = { hip = "hipMemcpyHostToDevice", kind = "enum" }
cudaError_t = { hip = "hipError_t", kind = "type" }
cudaSuccess = { hip = "hipSuccess", kind = "enum" }
cudaDeviceProp = { hip = "hipDeviceProp_t", kind = "type" }
deviceOverlap = { hip = "deviceOverlap", kind = "field", since = "6.0", value = "1", note = "copies overlap kernels" }
unifiedAddressing = { hip = "unifiedAddressing", kind = "field", since = "6.0", value = "1", note = "one address space" }
cudaMemcpyKind = { hip = "hipMemcpyKind", kind = "type" }
cudaStream_t = { hip = "hipStream_t", kind = "type" }
cudaStreamSynchronize = { hip = "hipStreamSynchronize", kind = "function" }
cudaGetErrorString = { hip = "hipGetErrorString", kind = "function" }
cudaMemcpyToSymbol = { hip = "hipMemcpyToSymbol", kind = "function", args = "hip_symbol:0" }
cudaMemcpyFromSymbol = { hip = "hipMemcpyFromSymbol", kind = "function", args = "hip_symbol:1" }
cudaFuncGetAttributes = { hip = "hipFuncGetAttributes", kind = "function", args = "fn_cast:1" }
cudaFuncSetCacheConfig = { hip = "hipFuncSetCacheConfig", kind = "function", args = "fn_cast:0" }
cudaFuncCachePreferL1 = { hip = "hipFuncCachePreferL1", kind = "enum" }
cudaMallocHost = { hip = "hipHostMalloc", kind = "function", args = "host_malloc_flags:2" }
cudaHostAlloc = { hip = "hipHostMalloc", kind = "function", args = "host_malloc_flags:2" }
cudaHostAllocMapped = { hip = "hipHostMallocMapped", kind = "macro" }
cudaThreadSynchronize = { hip = "hipDeviceSynchronize", kind = "function" }
cudaGraphExecNodeSetParams = { kind = "function", status = "unsupported", alt = "hipGraphExecKernelNodeSetParams", note = "kernel nodes only" }
cudaMallocAsync = { hip = "hipMallocAsync", kind = "function", since = "5.3" }
cudaProfilerStart = { hip = "hipProfilerStart", kind = "function", status = "deprecated" }
cudaBogus = { hip = "hipBogus", kind = "function", args = "frobnicate:0" }
__CUDACC__ = { hip = "__HIPCC__", kind = "macro" }

[headers]
"cuda_runtime.h" = { hip = "hip/hip_runtime.h" }
"cuda.h" = { hip = "hip/hip_runtime.h" }
"""

MINI_BLAS = """
family = "cublas"
title = "mini cuBLAS"

[headers]
"cublas_v2.h" = { hip = "hipblas/hipblas.h", flat = "hipblas.h" }
"cudnn.h" = { status = "unsupported", note = "use MIOpen" }
"""

MINI_CUB = """
family = "cub"
title = "mini CUB"

[names]
BlockReduce = { hip = "BlockReduce", kind = "type" }
"thrust::cuda::par" = { hip = "thrust::hip::par", kind = "function" }

[namespaces]
cub = { hip = "hipcub" }
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> rulesmod.RuleSet:
    root = tmp_path_factory.mktemp("rules")
    (root / "api").mkdir()
    (root / "api" / "runtime.toml").write_text(MINI_RUNTIME)
    (root / "api" / "cub.toml").write_text(MINI_CUB)
    (root / "api" / "cublas.toml").write_text(MINI_BLAS)
    return rulesmod.load("hipblas", str(root))


HIP = b"#include <hip/hip_runtime.h>\n"


def run(rules: rulesmod.RuleSet, data: bytes, **config):  # -> (bytes, Context, conflicts)
    src = SourceFile("t.cu", data)
    ctx = translate.run(src, Config(wave64=False, **config), rules)
    kept, conflicts = resolve(ctx.edits)
    return apply_edits(data, kept), ctx, conflicts


def port(rules: rulesmod.RuleSet, body: bytes, **config) -> bytes:
    """Port `body` below a HIP runtime include (so no include is inserted); return the body."""
    out, _, conflicts = run(rules, HIP + body, **config)
    assert not conflicts
    assert out.startswith(HIP)
    return out[len(HIP):]


def reported(ctx, rule: str) -> list[str]:
    """Names the findings of `rule` are about (their `subject`, which the message starts with),
    as port_bytes keeps them."""
    found = [f for f in ctx.findings if f.rule == rule]
    if rule == "HP002":
        found = [f for f in ctx.unknown if f.subject not in ctx.defines]
    assert all(f.subject == f.message.split(" ", 1)[0] for f in found if f.rule in ("HP001", "HP002"))
    return [f.message.split(" ", 1)[0] for f in found]


# --------------------------------------------------------------------------- names

NAME_NOOPS = [
    pytest.param(b'const char* s = "cudaMalloc(&p, n)";\n', id="name-inside-a-string-literal"),
    pytest.param(b'const char* s = u8"cudaFree" L"cudaFree";\n', id="name-inside-prefixed-strings"),
    pytest.param(b"// cudaMalloc(&p, n); cudaFree(p);\n", id="name-inside-a-line-comment"),
    pytest.param(b"/* cudaMalloc\n   cudaFree */\nint x;\n", id="name-inside-a-block-comment"),
    pytest.param(b'const char* k = R"(cudaFree(p); "quoted" )";\n', id="name-inside-a-raw-string"),
    pytest.param(b'const char* k = R"x(cudaFree )" cudaFree)x";\n', id="raw-string-with-a-fake-terminator"),
    pytest.param(b"int c = 'cudaFree';\n", id="name-inside-a-multichar-literal"),
    pytest.param(b"void f(Api& a, Api* b) { a.cudaMalloc(0, 1); b->cudaFree(0); }\n",
                 id="field-and-method-names-are-not-api-calls"),
    pytest.param(b"struct Api { int cudaMemcpy; void cudaFree(void*); };\n", id="member-declarations"),
    pytest.param(b"void f() { cudaMallocWrapper(p); my_cudaMalloc(p); cudaFree_(p); }\n",
                 id="longer-identifiers-that-contain-an-api-name"),
    pytest.param(b"void f() { hipMalloc(&p, 4); hipFree(p); }\n", id="hip-names-stay-idempotence"),
    pytest.param(b"#include <cuda_helpers/util.h>\n#include \"cudaUtils.h\"\n",
                 id="project-headers-named-like-cuda"),
    pytest.param(b'const char* inc = R"(\n#include <cuda_runtime.h>\n)";\n',
                 id="include-line-inside-a-raw-string"),
    pytest.param(b"// #include <cuda_runtime.h>\n/*\n#include <cuda.h>\n*/\n", id="include-lines-in-comments"),
    pytest.param(b'#define MSG "cudaMalloc failed"\n', id="string-in-a-macro-body"),
    pytest.param(b"#define ONE /* cudaFree */ 1\n", id="comment-in-a-macro-body"),
    pytest.param(b'#define SRC R"(cudaFree(p))"\n', id="raw-string-in-a-macro-body"),
    pytest.param(b"#define cudaCheck(x) (x)\n", id="project-macro-named-like-cuda"),
    pytest.param(b"BlockReduce<float, 4> mine;\n", id="bare-name-of-a-namespaced-family-is-the-projects"),
    pytest.param(b"void f() { k<<<1, 1>>>(p); }\n", id="chevron-launch-kept-by-default"),
]


@pytest.mark.parametrize("body", NAME_NOOPS)
def test_left_identical(rules: rulesmod.RuleSet, body: bytes) -> None:
    assert port(rules, body) == body


NAME_FIXES = [
    pytest.param(b"void f() { cudaMalloc(&p, n); }\n", b"void f() { hipMalloc(&p, n); }\n", id="call"),
    pytest.param(b"cudaError_t e = (cudaError_t)0;\n", b"hipError_t e = (hipError_t)0;\n",
                 id="type-in-declaration-and-cast"),
    pytest.param(b"void f() { cudaMemcpy(d, h, n, cudaMemcpyHostToDevice); }\n",
                 b"void f() { hipMemcpy(d, h, n, hipMemcpyHostToDevice); }\n", id="enum-argument"),
    pytest.param(b"auto fp = &cudaFree;\n", b"auto fp = &hipFree;\n", id="address-of-an-api-function"),
    pytest.param(b"void f() { ::cudaFree(p); }\n", b"void f() { ::hipFree(p); }\n", id="global-scope-qualifier"),
    pytest.param(b"std::vector<cudaStream_t> streams;\n", b"std::vector<hipStream_t> streams;\n",
                 id="template-argument"),
    pytest.param(b"template <cudaMemcpyKind K = cudaMemcpyHostToDevice> struct Copy {};\n",
                 b"template <hipMemcpyKind K = hipMemcpyHostToDevice> struct Copy {};\n",
                 id="template-parameter-type-and-default"),
    pytest.param(b"using Deleter = decltype(&cudaFree);\n", b"using Deleter = decltype(&hipFree);\n", id="decltype"),
    pytest.param(b"void f(cudaStream_t s = nullptr);\n", b"void f(hipStream_t s = nullptr);\n", id="parameter-type"),
    pytest.param(b"auto ok = [](cudaError_t e) { return e == cudaSuccess; };\n",
                 b"auto ok = [](hipError_t e) { return e == hipSuccess; };\n", id="lambda"),
    pytest.param(b"void f() { char q = '\"'; cudaFree(p); char r = '\"'; }\n",
                 b"void f() { char q = '\"'; hipFree(p); char r = '\"'; }\n",
                 id="quote-char-literals-around-a-call"),
    pytest.param(b'void f() { puts("cudaFree"); cudaFree(p); puts("cudaFree"); }\n',
                 b'void f() { puts("cudaFree"); hipFree(p); puts("cudaFree"); }\n',
                 id="call-between-strings-naming-it"),
    pytest.param(b"#ifdef USE_A\nvoid f() { cudaMalloc(&p, 1); }\n#else\nvoid f() { cudaFree(p); }\n#endif\n",
                 b"#ifdef USE_A\nvoid f() { hipMalloc(&p, 1); }\n#else\nvoid f() { hipFree(p); }\n#endif\n",
                 id="both-preprocessor-branches"),
    pytest.param(b"#if 0\nvoid f() { cudaFree(p); }\n#endif\n", b"#if 0\nvoid f() { hipFree(p); }\n#endif\n",
                 id="disabled-if-0-branch"),
    pytest.param(b"#ifdef __CUDACC__\n#endif\n", b"#ifdef __HIPCC__\n#endif\n", id="compiler-macro-in-ifdef"),
    pytest.param(b"size_t s = sizeof(cudaDeviceProp);\n", b"size_t s = sizeof(hipDeviceProp_t);\n", id="sizeof-type"),
    pytest.param(b"cub::BlockReduce<float, 128> r;\n", b"hipcub::BlockReduce<float, 128> r;\n",
                 id="namespace-qualified-name"),
    pytest.param(b"namespace c = cub;\n", b"namespace c = hipcub;\n", id="namespace-alias"),
    pytest.param(b"auto p = thrust::cuda::par;\n", b"auto p = thrust::hip::par;\n", id="qualified-table-key"),
    pytest.param(b"void f() { cudaFree(p) }\nint g( { cudaMalloc(&p, 1); }\n",
                 b"void f() { hipFree(p) }\nint g( { hipMalloc(&p, 1); }\n", id="inside-parse-error-regions"),
    pytest.param(b"void f() { cudaThreadSynchronize(); }\n", b"void f() { hipDeviceSynchronize(); }\n",
                 id="rename-to-a-different-api"),
    pytest.param(b"void f() {\r\n\tcudaFree(p);\r\n}\r\n", b"void f() {\r\n\thipFree(p);\r\n}\r\n", id="crlf-and-tabs"),
    pytest.param(b"// Jos\xe9\nvoid f() { cudaFree(p); } /* \xe9t\xe9 */\n",
                 b"// Jos\xe9\nvoid f() { hipFree(p); } /* \xe9t\xe9 */\n", id="latin1-comments-kept"),
    pytest.param(b"void f() { struct cudaDeviceProp p; enum cudaMemcpyKind k; }\n",
                 b"void f() { hipDeviceProp_t p; hipMemcpyKind k; }\n",
                 id="elaborated-struct-and-enum-references"),
    pytest.param(b"typedef struct cudaDeviceProp P;\n", b"typedef hipDeviceProp_t P;\n", id="elaborated-in-a-typedef"),
    pytest.param(b"using namespace cub;\n", b"using namespace hipcub;\n",
                 id="using-namespace-directive"),
]


@pytest.mark.parametrize(("before", "after"), NAME_FIXES)
def test_renamed(rules: rulesmod.RuleSet, before: bytes, after: bytes) -> None:
    assert port(rules, before) == after
    assert port(rules, after) == after  # and a second run changes nothing


# --------------------------------------------------------------------------- macro bodies

MACRO_FIXES = [
    pytest.param(b"#define CHECK(x) if ((x) != cudaSuccess) puts(#x)\n",
                 b"#define CHECK(x) if ((x) != hipSuccess) puts(#x)\n", id="stringification-kept"),
    pytest.param(b"#define CHECK(x) do { cudaError_t e = (x); \\\n  if (e) puts(cudaGetErrorString(e)); } while (0)\n",
                 b"#define CHECK(x) do { hipError_t e = (x); \\\n  if (e) puts(hipGetErrorString(e)); } while (0)\n",
                 id="continuation-lines"),
    pytest.param(b"#define CHECK(x) do { \\\r\n  cudaFree(x); } while (0)\r\n",
                 b"#define CHECK(x) do { \\\r\n  hipFree(x); } while (0)\r\n", id="crlf-continuation-lines"),
    pytest.param(b"#define PASTE(a) cudaMemcpy##a\n", b"#define PASTE(a) hipMemcpy##a\n", id="name-before-token-paste"),
    pytest.param(b"#define PASTE(a) a##cudaFree\n", b"#define PASTE(a) a##hipFree\n", id="name-after-token-paste"),
    pytest.param(b"#define PASTE(a) cuda##a\n", b"#define PASTE(a) cuda##a\n", id="pasted-prefix-left-alone"),
    pytest.param(b"#define Q(p) ((p) == '\"' ? cudaFree(0) : cudaSuccess)\n",
                 b"#define Q(p) ((p) == '\"' ? hipFree(0) : hipSuccess)\n", id="quote-char-literal-in-body"),
    pytest.param(b'#define E(x) puts("cudaFree: " #x), cudaFree(x)\n',
                 b'#define E(x) puts("cudaFree: " #x), hipFree(x)\n', id="string-and-call-in-one-body"),
    pytest.param(b"#define FREE(p) cudaFree(p) // cudaFree\n", b"#define FREE(p) hipFree(p) // cudaFree\n",
                 id="trailing-comment-in-body"),
    pytest.param(b"#define NS cub::BlockReduce\n", b"#define NS hipcub::BlockReduce\n", id="namespace-in-body"),
]


@pytest.mark.parametrize(("before", "after"), MACRO_FIXES)
def test_macro_body(rules: rulesmod.RuleSet, before: bytes, after: bytes) -> None:
    assert port(rules, before) == after


def test_macro_body_unknown_name_is_reported_and_kept(rules: rulesmod.RuleSet) -> None:
    out, ctx, _ = run(rules, HIP + b"#define S(op) cudaStream##op\n")
    assert out == HIP + b"#define S(op) cudaStream##op\n"
    assert reported(ctx, "HP002") == ["cudaStream"]


def test_macro_body_argument_transforms(rules: rulesmod.RuleSet) -> None:
    before = b"#define PREFER_L1(k) cudaFuncSetCacheConfig(k, cudaFuncCachePreferL1)\n"
    after = b"#define PREFER_L1(k) hipFuncSetCacheConfig(reinterpret_cast<const void*>(k), hipFuncCachePreferL1)\n"
    assert port(rules, before) == after
    before = b"#define PIN(p, n) cudaMallocHost((void**)&(p), (n))\n#define UP(s, h) cudaMemcpyToSymbol(s, h, 4)\n"
    after = (b"#define PIN(p, n) hipHostMalloc((void**)&(p), (n), hipHostMallocDefault)\n"
             b"#define UP(s, h) hipMemcpyToSymbol(HIP_SYMBOL(s), h, 4)\n")
    assert port(rules, before) == after
    assert port(rules, after) == after


# --------------------------------------------------------------------------- launches

GGL_FIXES = [
    pytest.param(b"k<<<g, b>>>(x, y);", b"hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y);", id="grid-and-block"),
    pytest.param(b"k<<<g, b, smem>>>(x);", b"hipLaunchKernelGGL(k, dim3(g), dim3(b), smem, 0, x);", id="shared-memory"),
    pytest.param(b"k<<<g, b, smem, s>>>(x);", b"hipLaunchKernelGGL(k, dim3(g), dim3(b), smem, s, x);",
                 id="shared-memory-and-stream"),
    pytest.param(b"k<<<1, 1>>>();", b"hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0);", id="no-arguments"),
    pytest.param(b"k<<<1, 1, 0, s>>>();", b"hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, s);", id="no-arguments-with-stream"),
    pytest.param(b"k<float, 4><<<1, 2>>>(x);", b"hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float, 4>), dim3(1), dim3(2), 0, 0, x);",
                 id="template-kernel"),
    pytest.param(b"ns::k<T><<<1, 2>>>(x);", b"hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::k<T>), dim3(1), dim3(2), 0, 0, x);",
                 id="qualified-template-kernel"),
    pytest.param(b"k<Pair<int, float>><<<1, 2>>>(x);",
                 b"hipLaunchKernelGGL(HIP_KERNEL_NAME(k<Pair<int, float>>), dim3(1), dim3(2), 0, 0, x);",
                 id="nested-template-arguments"),
    pytest.param(b"ns::k<<<1, 2>>>(x);", b"hipLaunchKernelGGL(ns::k, dim3(1), dim3(2), 0, 0, x);",
                 id="qualified-plain-kernel-no-kernel-name-macro"),
    pytest.param(b"k<<<dim3(div(n, 256)), dim3((256), 1)>>>(f(a, b), (c));",
                 b"hipLaunchKernelGGL(k, dim3(div(n, 256)), dim3((256), 1), 0, 0, f(a, b), (c));",
                 id="nested-parentheses-dim3-not-wrapped-again"),
    pytest.param(b"k<<<dim3(2), grid>>>( );", b"hipLaunchKernelGGL(k, dim3(2), dim3(grid), 0, 0);",
                 id="blank-empty-arguments"),
    pytest.param(b"k<<<make(2), dim3>>>(x);", b"hipLaunchKernelGGL(k, dim3(make(2)), dim3(dim3), 0, 0, x);",
                 id="only-a-dim3-call-is-left-unwrapped"),
    pytest.param(b"k<<<std::max<int>(1, n), 256>>>(x);",
                 b"hipLaunchKernelGGL(k, dim3(std::max<int>(1, n)), dim3(256), 0, 0, x);",
                 id="template-call-in-grid"),
    pytest.param(b"k<<<\t1,\t2>>>(x);", b"hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, x);", id="tabs-after-separators"),
    pytest.param(b"k<<<g /* grid */, b>>>(x);", b"hipLaunchKernelGGL(k, dim3(g /* grid */), dim3(b), 0, 0, x);",
                 id="comment-inside-the-configuration"),
    pytest.param(b"kernels[i]<<<1, 1>>>(x);", b"hipLaunchKernelGGL(kernels[i], dim3(1), dim3(1), 0, 0, x);",
                 id="kernel-from-an-array"),
    pytest.param(b"[&] { k<<<1, 1, 0, s>>>(x); }();", b"[&] { hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, s, x); }();",
                 id="inside-a-lambda"),
    pytest.param(b"if (a) k<<<1, 1>>>(x); else k<<<2, 2>>>(y);",
                 b"if (a) hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, x); else hipLaunchKernelGGL(k, dim3(2), dim3(2), 0, 0, y);",
                 id="two-launches-in-one-statement"),
    pytest.param(b"k<<<1, 1, 0, s>>>(a,\n             b);", b"hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, s, a,\n             b);",
                 id="multi-line-arguments"),
    pytest.param(b"k<<<1, 1>>>(\n    a);", b"hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0,\n    a);",
                 id="arguments-start-on-the-next-line"),
    pytest.param(b"k<<<1, 1>>>(cudaStream_t(0));", b"hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, hipStream_t(0));",
                 id="renames-inside-the-arguments"),
    # nvcc reads spaced chevrons as a launch; one port makes them GGL (not `<<<` first, GGL next)
    pytest.param(b"k << < 1, 2 >> > (cudaStream_t(0));", b"hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, hipStream_t(0));",
                 id="spaced-chevrons"),
    pytest.param(b"k<<\t<g, b, 0, s>>\t\t>(x);", b"hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, s, x);",
                 id="spaced-chevrons-with-tabs-and-a-stream"),
    pytest.param(b"k << < 1, 2 >> > (x); q<<<3, 4>>>(y);",
                 b"hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, x); hipLaunchKernelGGL(q, dim3(3), dim3(4), 0, 0, y);",
                 id="spaced-and-plain-launches-together"),
    pytest.param(b"k<<<1, n >>>(x);", b"hipLaunchKernelGGL(k, dim3(1), dim3(n), 0, 0, x);",
                 id="blanks-before-the-closing-chevron-go"),
    pytest.param(b"k<<<g ,b,n*4 ,s>>>(x);", b"hipLaunchKernelGGL(k, dim3(g), dim3(b), n*4, s, x);",
                 id="parts-written-comma-space"),
    pytest.param(b"k<<<g\n    , b>>>(x);", b"hipLaunchKernelGGL(k, dim3(g\n    ), dim3(b), 0, 0, x);",
                 id="a-newline-before-a-comma-stays"),
]


@pytest.mark.parametrize(("before", "after"), GGL_FIXES)
def test_ggl_launch(rules: rulesmod.RuleSet, before: bytes, after: bytes) -> None:
    wrap = (b"void f() {\n  ", b"\n}\n")
    assert port(rules, before.join(wrap), launch_syntax="ggl") == after.join(wrap)
    assert port(rules, after.join(wrap), launch_syntax="ggl") == after.join(wrap)


MACRO_LAUNCHES = [
    pytest.param(b"#define L(k, n, ...) k<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)\n",
                 b"#define L(k, n, ...) hipLaunchKernelGGL(k, dim3(((n) + 255) / 256), dim3(256), 0, 0, __VA_ARGS__)\n",
                 id="variadic-launch-macro"),
    pytest.param(b"#define L(k) \\\n  k<<<1, 1>>>()\n", b"#define L(k) \\\n  hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0)\n",
                 id="continuation-line-before-the-launch"),
    pytest.param(b"#define L(k, s) \\\r\n  k<<<1, 1, 0, s>>>(cudaStream_t(s))\r\n",
                 b"#define L(k, s) \\\r\n  hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, s, hipStream_t(s))\r\n",
                 id="crlf-continuation-and-a-rename"),
    pytest.param(b"#define TWO(k) k<<<1, 1>>>(); k<<<2, 2>>>()\n",
                 b"#define TWO(k) hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0); hipLaunchKernelGGL(k, dim3(2), dim3(2), 0, 0)\n",
                 id="two-launches-in-one-macro"),
]


@pytest.mark.parametrize(("before", "after"), MACRO_LAUNCHES)
def test_ggl_launch_in_macro(rules: rulesmod.RuleSet, before: bytes, after: bytes) -> None:
    assert port(rules, before, launch_syntax="ggl") == after


TEMPLATE_KERNEL = b"template <typename T>\n__global__ void k(T* p) {}\n__global__ void plain(int* p) {}\n"


@pytest.mark.parametrize(("before", "after"), [
    pytest.param(b"k<<<1, 2>>>(p);", b"hipLaunchKernelGGL(HIP_KERNEL_NAME(k), dim3(1), dim3(2), 0, 0, p);",
                 id="a-template-kernel-with-deduced-arguments-is-named-as-one"),
    pytest.param(b"plain<<<1, 2>>>(p);", b"hipLaunchKernelGGL(plain, dim3(1), dim3(2), 0, 0, p);",
                 id="a-plain-kernel-beside-it-is-not"),
])
def test_ggl_launch_of_a_template_kernel(rules: rulesmod.RuleSet, before: bytes, after: bytes) -> None:
    wrap = (TEMPLATE_KERNEL + b"void f(float* p) {\n  ", b"\n}\n")
    assert port(rules, before.join(wrap), launch_syntax="ggl") == after.join(wrap)
    macro = b"#define L(p) " + before.rstrip(b";") + b"\n"
    assert port(rules, TEMPLATE_KERNEL + macro, launch_syntax="ggl") == TEMPLATE_KERNEL + b"#define L(p) " + after.rstrip(b";") + b"\n"


LAUNCH_NOOPS = [
    pytest.param(b'void f() { puts("k<<<1, 1>>>(x)"); }\n', id="launch-in-a-string"),
    pytest.param(b"void f() { /* k<<<1, 1>>>(x); */ }\n// k<<<1, 1>>>(x);\n", id="launch-in-comments"),
    pytest.param(b"void f() { std::cout << a << (b << 2); }\n", id="shift-operators"),
    pytest.param(b"void f() { hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, x); }\n", id="already-ggl"),
]


@pytest.mark.parametrize("body", LAUNCH_NOOPS)
def test_ggl_leaves_alone(rules: rulesmod.RuleSet, body: bytes) -> None:
    assert port(rules, body, launch_syntax="ggl") == body


# --------------------------------------------------------------------------- includes

INSERTION_POINTS = [
    pytest.param(b"", 0, id="empty-file"),
    pytest.param(b"__global__ void k() {}\n", 0, id="code-at-the-top"),
    pytest.param(b"// a\n// b\nint x;\n", 10, id="after-a-line-comment-block"),
    pytest.param(b"/* license\n * text\n */\n\n#include <vector>\n", 24, id="after-a-block-comment-and-blank-line"),
    pytest.param(b"// a\r\n\r\nint x;\r\n", 8, id="crlf-comment-and-blank-line"),
    pytest.param(b"#pragma once\nint x;\n", 13, id="after-pragma-once"),
    pytest.param(b"// license\n#pragma once\n#include <vector>\n", 24, id="pragma-once-after-a-license"),
    pytest.param(b"#pragma once\r\nint x;\r\n", 14, id="crlf-pragma-once"),
    pytest.param(b"  #  pragma   once  \nint x;\n", 21, id="spaced-pragma-once"),
    pytest.param(b"#ifndef A_H\n#define A_H\nint x;\n#endif\n", 24, id="after-include-guard"),
    pytest.param(b"// (c) me\n\n#ifndef A_H\n#define A_H 1\nint x;\n#endif\n", 37, id="guard-after-license-with-value"),
    pytest.param(b"#ifndef A_H\n#define B_H\nint x;\n#endif\n", 0, id="mismatched-guard-is-not-a-guard"),
    pytest.param(b"\xef\xbb\xbfint x;\n", 3, id="after-a-bom"),
    pytest.param(b"\xef\xbb\xbf// c\nint x;\n", 8, id="after-a-bom-and-comment"),
    pytest.param(b"\xef\xbb\xbf#pragma once\nint x;\n", 16, id="bom-then-pragma-once"),
    pytest.param(b"\xef\xbb\xbf#ifndef A\n#define A\nint x;\n#endif\n", 23, id="bom-then-include-guard"),
    pytest.param(b"/* usage:\n#pragma once\n*/\nint x;\n", 26, id="pragma-once-inside-a-block-comment"),
    pytest.param(b'const char* s = R"(\n#pragma once\n)";\n', 0, id="pragma-once-inside-a-raw-string"),
    pytest.param(b"#if 0\n#pragma once\n#endif\nint x;\n", 0, id="pragma-once-inside-if-0"),
    pytest.param(b"#pragma warning(disable: 4996)\n#pragma once\nint x;\n", 44, id="pragma-once-after-another-pragma"),
]


@pytest.mark.parametrize(("data", "offset"), INSERTION_POINTS)
def test_insertion_point(data: bytes, offset: int) -> None:
    assert insertion_point(data) == offset


INCLUDE_FIXES = [
    pytest.param(b"#include <cuda_runtime.h>\n", b"#include <hip/hip_runtime.h>\n", {}, id="angle-include"),
    pytest.param(b'#include "cuda_runtime.h"\n', b"#include <hip/hip_runtime.h>\n", {}, id="quoted-becomes-angle"),
    pytest.param(b"  #  include <cuda.h>  // driver\n", b"  #  include <hip/hip_runtime.h>  // driver\n", {},
                 id="spaced-directive-and-trailing-comment"),
    pytest.param(b"#include <cuda_runtime.h>\n#include <cuda.h>\n", b"#include <hip/hip_runtime.h>\n#include <hip/hip_runtime.h>\n",
                 {}, id="duplicates-each-mapped-none-inserted"),
    pytest.param(b"#include <cublas_v2.h>\n", b"#include <hipblas/hipblas.h>\n", {}, id="library-header-current-layout"),
    pytest.param(b"#include <cublas_v2.h>\n", b"#include <hipblas.h>\n", {"include_layout": "flat"}, id="flat-layout"),
    pytest.param(b'#include "kernels.cu"\n#include <other.cu>\n#include "k.cuh"\n#include "a.cu.h"\n',
                 b'#include "kernels.cu"\n#include <other.cu>\n#include "k.cuh"\n#include "a.cu.h"\n',
                 {"rename_extensions": True}, id="rename-extensions-only-a-cu-of-the-tree"),
    pytest.param(b'#include "kernels.cu"\n', b'#include "kernels.cu"\n', {}, id="no-rename-without-the-option"),
    pytest.param(b'#include "hip/hip_runtime.h"\n__global__ void k() {}\n', b'#include "hip/hip_runtime.h"\n__global__ void k() {}\n',
                 {}, id="quoted-hip-runtime-counts-as-present"),
    pytest.param(b"#include <vector>\nint f(std::vector<int>& v) { return v.size(); }\n",
                 b"#include <vector>\nint f(std::vector<int>& v) { return v.size(); }\n", {}, id="plain-cpp-gets-nothing"),
    pytest.param(b"// k\n__global__ void k() {}\n", b"// k\n#include <hip/hip_runtime.h>\n__global__ void k() {}\n", {},
                 id="device-code-gets-the-runtime-include"),
    pytest.param(b"void f() { cudaFree(0); }\n", b"#include <hip/hip_runtime.h>\nvoid f() { hipFree(0); }\n", {},
                 id="runtime-call-gets-the-runtime-include"),
    pytest.param(b"#pragma once\r\nvoid f() { cudaFree(0); }\r\n",
                 b"#pragma once\r\n#include <hip/hip_runtime.h>\r\nvoid f() { hipFree(0); }\r\n", {},
                 id="inserted-line-uses-crlf"),
    pytest.param(b"#include <vector>\ncub::BlockReduce<int, 4> r;\n", b"#include <vector>\nhipcub::BlockReduce<int, 4> r;\n", {},
                 id="library-only-use-gets-no-runtime-include"),
]


@pytest.mark.parametrize(("before", "after", "config"), INCLUDE_FIXES)
def test_includes(rules: rulesmod.RuleSet, before: bytes, after: bytes, config: dict) -> None:
    out, _, conflicts = run(rules, before, **config)
    assert not conflicts
    assert out == after


def test_unsupported_header_is_kept_and_reported(rules: rulesmod.RuleSet) -> None:
    data = b"#include <hip/hip_runtime.h>\n#include <cudnn.h>\n"
    out, ctx, _ = run(rules, data)
    assert out == data
    [f] = [f for f in ctx.findings if f.rule == "HP008"]
    assert "cudnn.h" in f.message and "MIOpen" in f.message


# --------------------------------------------------------------------------- argument transforms

ARG_FIXES = [
    pytest.param(b"cudaMemcpyToSymbol(c, h, 4);", b"hipMemcpyToSymbol(HIP_SYMBOL(c), h, 4);", id="symbol-first-argument"),
    pytest.param(b"cudaMemcpyFromSymbol(h, c, 4);", b"hipMemcpyFromSymbol(h, HIP_SYMBOL(c), 4);", id="symbol-second-argument"),
    pytest.param(b"cudaMemcpyToSymbol(ns::table, h, 4);", b"hipMemcpyToSymbol(HIP_SYMBOL(ns::table), h, 4);",
                 id="qualified-symbol"),
    pytest.param(b"cudaMemcpyToSymbol( c , h, 4);", b"hipMemcpyToSymbol( HIP_SYMBOL(c) , h, 4);", id="symbol-with-spaces"),
    pytest.param(b"cudaMemcpyToSymbol(HIP_SYMBOL(c), h, 4);", b"hipMemcpyToSymbol(HIP_SYMBOL(c), h, 4);",
                 id="symbol-already-wrapped"),
    pytest.param(b"cudaMemcpyToSymbol();", b"hipMemcpyToSymbol();", id="too-few-arguments-no-crash"),
    pytest.param(b"cudaFuncGetAttributes(&a, k);", b"hipFuncGetAttributes(&a, reinterpret_cast<const void*>(k));",
                 id="function-cast"),
    pytest.param(b"cudaFuncSetCacheConfig(k<float, 2>, cudaFuncCachePreferL1);",
                 b"hipFuncSetCacheConfig(reinterpret_cast<const void*>(k<float, 2>), hipFuncCachePreferL1);",
                 id="function-cast-of-a-template-id"),
    pytest.param(b"cudaFuncSetCacheConfig((const void*)k, cudaFuncCachePreferL1);",
                 b"hipFuncSetCacheConfig((const void*)k, hipFuncCachePreferL1);", id="c-style-cast-kept"),
    pytest.param(b"cudaFuncSetCacheConfig(reinterpret_cast<void*>(k), cudaFuncCachePreferL1);",
                 b"hipFuncSetCacheConfig(reinterpret_cast<void*>(k), hipFuncCachePreferL1);", id="cpp-cast-kept"),
    pytest.param(b"cudaMallocHost(&p, n);", b"hipHostMalloc(&p, n, hipHostMallocDefault);", id="default-host-flags-added"),
    pytest.param(b"cudaMallocHost(&p, n /* bytes */);", b"hipHostMalloc(&p, n /* bytes */, hipHostMallocDefault);",
                 id="default-flags-after-a-trailing-comment"),
    pytest.param(b"cudaHostAlloc(&p, n, cudaHostAllocMapped);", b"hipHostMalloc(&p, n, hipHostMallocMapped);",
                 id="host-alloc-flags-renamed"),
    pytest.param(b"auto fn = &cudaMallocHost;", b"auto fn = &hipHostMalloc;", id="not-a-call-no-argument-edit"),
]


@pytest.mark.parametrize(("before", "after"), ARG_FIXES)
def test_argument_transforms(rules: rulesmod.RuleSet, before: bytes, after: bytes) -> None:
    wrap = (b"void f() {\n  ", b"\n}\n")
    assert port(rules, before.join(wrap)) == after.join(wrap)
    assert port(rules, after.join(wrap)) == after.join(wrap)


@pytest.mark.parametrize(("decls", "before", "after"), [
    pytest.param(b"void *p;", b"cudaHostGetDevicePointer(&p, h, 0);", b"hipHostGetDevicePointer(&p, h, 0);",
                 id="address-of-a-void-pointer-is-a-void-pp-already"),
    pytest.param(b"float *p;", b"cudaHostGetDevicePointer(&p, h, 0);",
                 b"hipHostGetDevicePointer(reinterpret_cast<void**>(&p), h, 0);", id="a-typed-pointer-is-cast"),
    pytest.param(b"const void *p;", b"cudaMallocPitch(&p, &w, 1, 2);",
                 b"hipMallocPitch(reinterpret_cast<void**>(&p), &w, 1, 2);", id="const-void-pointer-is-cast"),
    pytest.param(b"void *p; { float *p; }", b"cudaMallocPitch(&p, &w, 1, 2);",
                 b"hipMallocPitch(reinterpret_cast<void**>(&p), &w, 1, 2);", id="two-declarations-keep-the-cast"),
    pytest.param(b"", b"cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, 1, 0);",
                 b"hipOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, 1, 0);",
                 id="occupancy-takes-the-kernel-through-hips-template-overload"),
])
def test_casts_only_where_the_type_needs_one(decls: bytes, before: bytes, after: bytes) -> None:
    """The address of a `void *` the function declares once needs no cast to `void **`; a name
    declared otherwise, or more than once, keeps it. A global does not count (a local may
    shadow it)."""
    rs = rulesmod.load()
    wrap = (b"void f(int n, size_t w, void *h) {\n  " + decls + b"\n  ", b"\n}\n")
    assert port(rs, before.join(wrap)) == after.join(wrap)
    glob = b"void *p;\n" + before.join((b"void f(size_t w, void *h) {\n  ", b"\n}\n"))
    if b"(&p" in before:
        assert b"reinterpret_cast<void**>(&p)" in port(rs, glob)


def test_unknown_argument_transform_is_an_error(rules: rulesmod.RuleSet) -> None:
    out, ctx, _ = run(rules, HIP + b"void f() { cudaBogus(x); }\n")
    assert out == HIP + b"void f() { hipBogus(x); }\n"
    [f] = [f for f in ctx.findings if f.rule == "HP006"]
    assert "frobnicate" in f.message


# --------------------------------------------------------------------------- findings

def test_unsupported_is_left_as_is_and_reported(rules: rulesmod.RuleSet) -> None:
    body = b"void f() { cudaGraphExecNodeSetParams(e, n, p); }\n"
    out, ctx, _ = run(rules, HIP + body)
    assert out == HIP + body
    [f] = [f for f in ctx.findings if f.rule == "HP001"]
    assert "hipGraphExecKernelNodeSetParams" in f.message and "kernel nodes only" in f.message
    assert (f.span.line, f.span.column) == (2, 12)


@pytest.mark.parametrize(("rocm", "expected"), [pytest.param("5.2", ["hipMallocAsync"], id="below-since-reported"),
                                                pytest.param("5.3", [], id="floor-at-since-quiet")])
def test_newer_rocm_needed(rules: rulesmod.RuleSet, rocm: str, expected: list[str]) -> None:
    out, ctx, _ = run(rules, HIP + b"void f() { cudaMallocAsync(&p, n, s); }\n", rocm=rocm)
    assert out == HIP + b"void f() { hipMallocAsync(&p, n, s); }\n"
    assert reported(ctx, "HP003") == expected


def test_deprecated_is_ported_and_noted(rules: rulesmod.RuleSet) -> None:
    out, ctx, _ = run(rules, HIP + b"void f() { cudaProfilerStart(); }\n")
    assert out == HIP + b"void f() { hipProfilerStart(); }\n"
    assert reported(ctx, "HP004") == ["cudaProfilerStart"]


def test_parse_error_is_reported(rules: rulesmod.RuleSet) -> None:
    _, ctx, _ = run(rules, HIP + b"void f( { cudaFree(p); \n")
    assert [f.rule for f in ctx.findings] == ["HP005"]


UNKNOWN = [
    pytest.param(b"void f() { cudaLegacyThing(1); }\n", ["cudaLegacyThing"], id="unknown-call-reported"),
    pytest.param(b"void f() { cudaFree(p); }\n", [], id="known-name-not-reported"),
    pytest.param(b'void f() { puts("cudaLegacyThing"); }\n', [], id="string-not-reported"),
    pytest.param(b"void cudaCheck(int e) {}\nvoid f() { cudaCheck(1); }\n", [], id="function-defined-here"),
    pytest.param(b"#define cudaCheck(x) (x)\nvoid f() { cudaCheck(1); }\n", [], id="macro-defined-here"),
    pytest.param(b"struct cudaBuffer { int n; };\nvoid f() { cudaBuffer b; }\n", [], id="struct-defined-here"),
    pytest.param(b"enum { cudaModeA = 1 };\nint m = cudaModeA;\n", [], id="enumerator-defined-here"),
    pytest.param(b"typedef int cudaIndex_t;\ncudaIndex_t i;\n", [], id="typedef-defined-here"),
    pytest.param(b"static int cudaDevice = 0;\nvoid f() { cudaDevice++; }\n", [], id="initialised-variable-defined-here"),
    pytest.param(b"namespace cudaDetail { int x; }\nint y = cudaDetail::x;\n", [], id="namespace-defined-here"),
    pytest.param(b"int cudaTotal;\nvoid f() { cudaTotal++; }\n", [], id="variable-without-initializer"),
    pytest.param(b"int cudaA = 0, cudaB;\nvoid f() { cudaB = cudaA; }\n", [], id="second-declarator"),
    pytest.param(b"float* cudaBuf[4];\nvoid f() { cudaBuf[0] = 0; }\n", [], id="pointer-array-declarator"),
    pytest.param(b"void f(int cudaDev) { g(cudaDev); }\n", [], id="function-parameter"),
    pytest.param(b"template <typename cudaT> cudaT id(cudaT v) { return v; }\n", [], id="template-parameter"),
    pytest.param(b"struct cudaDeviceProp p;\nvoid f() { g(p); }\n", [], id="elaborated-known-type-is-not-unknown"),
]


@pytest.mark.parametrize(("body", "names"), UNKNOWN)
def test_unknown_cuda_names(rules: rulesmod.RuleSet, body: bytes, names: list[str]) -> None:
    _, ctx, _ = run(rules, HIP + body)
    assert sorted(set(reported(ctx, "HP002"))) == names


# --------------------------------------------------------------------------- edit resolution

def E(start: int, end: int, text: str = "x", rule: str = "r", priority: int = 0) -> Edit:  # noqa: N802
    return Edit(start, end, text, rule, priority)


RESOLVE = [
    pytest.param([E(5, 7, "b"), E(0, 2, "a")], [E(0, 2, "a"), E(5, 7, "b")], 0, id="disjoint-kept-in-file-order"),
    pytest.param([E(0, 2, "a"), E(0, 2, "a")], [E(0, 2, "a")], 0, id="exact-duplicates-collapse"),
    pytest.param([E(0, 2, "a", "one"), E(0, 2, "a", "two")], [E(0, 2, "a", "one")], 0,
                 id="same-rewrite-from-two-rules-is-no-conflict"),
    pytest.param([E(2, 4, "low"), E(0, 10, "high", priority=1)], [E(0, 10, "high", priority=1)], 0,
                 id="higher-priority-supersedes-a-contained-edit"),
    pytest.param([E(0, 10, "high", priority=1), E(2, 4, "low")], [E(0, 10, "high", priority=1)], 0,
                 id="supersedes-whatever-the-order"),
    pytest.param([E(3, 3, "ins"), E(0, 10, "high", priority=1)], [E(0, 10, "high", priority=1)], 0,
                 id="higher-priority-supersedes-an-insertion-inside"),
    pytest.param([E(0, 10, "low"), E(2, 4, "high", priority=1)], [E(2, 4, "high", priority=1)], 1,
                 id="lower-priority-edit-around-a-higher-is-a-conflict"),
    pytest.param([E(0, 5, "first"), E(3, 8, "second")], [E(0, 5, "first")], 1, id="same-priority-overlap-first-wins"),
    pytest.param([E(0, 5, "a"), E(0, 5, "b")], [E(0, 5, "a")], 1, id="same-span-different-text-conflict"),
    pytest.param([E(5, 5, "ins"), E(0, 5, "rep")], [E(0, 5, "rep"), E(5, 5, "ins")], 0, id="insertion-at-the-end-boundary"),
    pytest.param([E(0, 0, "ins"), E(0, 5, "rep")], [E(0, 0, "ins"), E(0, 5, "rep")], 0, id="insertion-at-the-start-boundary"),
    pytest.param([E(0, 5, "rep"), E(2, 2, "ins")], [E(0, 5, "rep")], 1, id="insertion-strictly-inside-is-a-conflict"),
    pytest.param([E(4, 4, "one"), E(4, 4, "two")], [E(4, 4, "one"), E(4, 4, "two")], 0,
                 id="two-insertions-at-one-point-keep-their-order"),
    pytest.param([E(0, 3, "a"), E(3, 6, "b")], [E(0, 3, "a"), E(3, 6, "b")], 0, id="adjacent-replacements"),
]


@pytest.mark.parametrize(("edits", "kept", "n_conflicts"), RESOLVE)
def test_resolve(edits: list[Edit], kept: list[Edit], n_conflicts: int) -> None:
    got, conflicts = resolve(edits)
    assert got == kept
    assert len(conflicts) == n_conflicts
    for winner, loser in conflicts:
        assert winner in got and loser not in got


def test_resolve_conflict_names_winner_and_loser() -> None:
    a, b = E(0, 5, "first", "HP-rename"), E(3, 8, "second", "W006")
    assert resolve([a, b]) == ([a], [(a, b)])


def test_apply_edits() -> None:
    data = b"cudaFree(p);"
    assert apply_edits(data, [E(0, 4, "hip")]) == b"hipFree(p);"
    assert apply_edits(data, [E(0, 0, "::"), E(0, 8, "hipFree")]) == b"::hipFree(p);"
    assert apply_edits(data, []) is data
    with pytest.raises(ValueError):
        apply_edits(data, [E(0, 5), E(3, 6)])


def test_mini_table_loaded(rules: rulesmod.RuleSet) -> None:
    assert rules.names["cudaMalloc"].hip == "hipMalloc"
    assert rules.namespaces["cub"].hip == "hipcub"
    assert "thrust::cuda::par" in rules.qualified


def test_device_prop_member_below_its_floor(rules: rulesmod.RuleSet) -> None:
    """A read of `prop.deviceOverlap` below ROCm 6.0 is written as the value AMD GPUs report;
    a write, an address taken or an object with a call in it keeps the member (HP003), and at a
    6.0 floor the member is HIP's own."""
    body = (b"void f(cudaDeviceProp prop, cudaDeviceProp *all) {\n"
            b"  int a = prop.deviceOverlap, b = all[0].unifiedAddressing;\n"
            b"  prop.deviceOverlap = 1;\n  int *q = &prop.deviceOverlap;\n"
            b"  int c = get(0).deviceOverlap;\n}\n")
    out, ctx, _ = run(rules, HIP + body)
    assert b"int a = 1, b = 1;" in out
    assert b"prop.deviceOverlap = 1;" in out and b"&prop.deviceOverlap" in out
    assert b"get(0).deviceOverlap" in out
    assert len([f for f in ctx.findings if f.rule == "HP011"]) == 2
    assert len([f for f in ctx.findings if f.rule == "HP003"]) == 3
    assert port(rules, body, rocm="6.0") == body.replace(b"cudaDeviceProp", b"hipDeviceProp_t")


def test_macro_parameter_named_like_an_api_is_the_files_own(rules: rulesmod.RuleSet) -> None:
    """`#define INIT(cuDevice) cuDevice = 0` (Rodinia's cutil): the parameter is not an unknown
    CUDA API, in the parameter list or the body."""
    _, ctx, _ = run(rules, HIP + b"#define INIT(cuDevice) do { cuDevice = 0; } while (0)\n")
    assert "cuDevice" in ctx.defines
    assert reported(ctx, "HP002") == []


def test_one_parse_note_per_region(rules: rulesmod.RuleSet) -> None:
    """A `missing )` and the ERROR after it on one line were two HP005 notes (321 on tiny-cuda-nn);
    regions lines apart stay apart."""
    code = (b"__global__ void k(float* a) {\n  TCNN_PRAGMA_UNROLL\n"
            b"  for (int i = 0; i < 4; ++i) a[i] = 0;\n  a[0] = 1;\n  a[1] = 2;\n"
            b"  auto f = [=] __device__ (int x) { return x; };\n}\n")
    src = SourceFile("t.cu", HIP + code)
    assert sum(1 for n in _error_nodes(src.root)) > 2  # tree-sitter's own nodes: more than the regions
    _, ctx, _ = run(rules, HIP + code)
    notes = [f for f in ctx.findings if f.rule == "HP005"]
    first = HIP.count(b"\n")
    assert [f.span.line - first for f in notes] == [3, 6], notes
    assert all("cannot parse" in f.message for f in notes)


def _error_nodes(node: Node) -> Iterator[Node]:
    if node.type == "ERROR" or node.is_missing:
        yield node
        return
    for c in node.children:
        yield from _error_nodes(c)
