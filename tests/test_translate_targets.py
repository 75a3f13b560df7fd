"""HP020: device functions a target in offload_arch cannot compile (rules/targets/device.toml).

The table's facts are compiled in tests/validate (HIP 6.4, hipcc's device options); here the
pass is run on real parses with the real table, for each kind of target."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport import rules as rulesmod
from hipport import translate
from hipport.config import Config
from hipport.errors import HipportError
from hipport.registry import HP
from hipport.rules.targets import lacks
from hipport.source import SourceFile

BODY = b"""#include <hip/hip_runtime.h>
__global__ void k(hipTextureObject_t t, float4* o, float u, float v, float l) {
  // tex2DLod<float4>(t, u, v, l) in a comment
  const char* s = "tex2DGrad(t)";
  o[0] = tex2DLod<float4>(t, u, v, l);
  o[1] = tex2D<float4>(t, u, v);
  o[2] = tex2DGrad < float4 > (t, u, v, make_float2(l, l), make_float2(l, l));
}
"""


def hp020(*arch: str) -> list[tuple[int, str]]:
    ctx = translate.run(SourceFile("t.hip", BODY), Config(wave64=False, offload_arch=arch), rulesmod.load())
    return [(f.span.line, f.subject or "") for f in ctx.findings if f.rule == HP.UNSUPPORTED_ON_TARGET]


def test_gfx90a_lacks_level_and_gradient_sampling_only() -> None:
    assert hp020("gfx90a") == [(5, "tex2DLod"), (7, "tex2DGrad")]


def test_target_features_do_not_change_the_instructions() -> None:
    assert hp020("gfx90a:xnack+") == hp020("gfx90a")


def test_gfx942_lacks_every_texture_function() -> None:
    assert hp020("gfx942") == [(5, "tex2DLod"), (6, "tex2D"), (7, "tex2DGrad")]


@pytest.mark.parametrize("arch", [("gfx908",), ("gfx1100",)])
def test_targets_with_the_instructions_get_nothing(arch: tuple[str, ...]) -> None:
    assert hp020(*arch) == []


def test_one_finding_per_call_with_several_targets() -> None:
    found = hp020("gfx90a", "gfx942")
    assert [s for _, s in found] == ["tex2DLod", "tex2D", "tex2DGrad"]


def test_a_bad_table_names_its_file(tmp_path: Path) -> None:
    (tmp_path / "targets").mkdir()
    (tmp_path / "targets" / "device.toml").write_text('[[lacks]]\ntargets = ["gfx90a"]\nwhat = "x"\n')
    with pytest.raises(HipportError) as e:
        lacks(str(tmp_path))
    assert "device.toml" in str(e.value) and "keys" in str(e.value)


CALLS = {
    "tex2DLod": "tex2DLod<float4>(t, u, v, l)",
    "tex2DGrad": "tex2DGrad<float4>(t, u, v, make_float2(l, l), make_float2(l, l))",
    "tex2Dgather": "tex2Dgather<float4>(t, u, v, 0)",
    "tex2D": "tex2D<float4>(t, u, v)",
    "tex1Dfetch": "tex1Dfetch<float4>(t, 1)",
}


def unit(call: str) -> str:
    return ("#include <hip/hip_runtime.h>\n__global__ void k(hipTextureObject_t t, float4* o, float u, "
            f"float v, float l) {{ o[0] = {call}; }}\n")


@pytest.mark.rocm64
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx908"])
def test_the_table_is_what_hip64_compiles(arch: str) -> None:
    """Each sampled function fails for a target exactly where the table says it lacks it."""
    from tests import hip64

    for name, call in CALLS.items():
        listed = any(arch in lack.targets and name in lack.functions for lack in lacks())
        proc = hip64.compile64(unit(call), arch=arch, codegen=True)
        assert (proc.returncode != 0) == listed, f"{name} on {arch}: {hip64.errors(proc) or 'compiles'}"


def test_the_backends_placeless_error_is_a_target_diagnostic() -> None:
    from hipport.validate import errors_map

    out = ("fatal error: error in backend: requested image instruction is not supported on this GPU\n"
           "clang: error: clang frontend command failed with exit code 70 (use -v to see invocation)\n")
    d = errors_map.parse(out)[0]
    assert d.line is None and errors_map.classify(d) == errors_map.TARGET


def _validate(tmp_path: Path, *args: str) -> str:
    from tests.conftest import hipport

    (tmp_path / "lod.cu").write_bytes(BODY)
    r = hipport("validate", "lod.cu", "--no-cache", "--offload-arch", "gfx90a", *args, cwd=tmp_path,
                env={"HIP_PLATFORM": "amd"})
    assert r.returncode == 1, r.stdout.decode() + r.stderr.decode()
    return r.stdout.decode()


@pytest.mark.hipcc
def test_validate_compiles_such_units_in_full_and_names_hp020_hip52(tmp_path: Path) -> None:
    """-fsyntax-only passes tex2DLod for gfx90a: validate compiles the unit through the backend,
    whose placeless error (HIP 5.2) is the unit's, explained by the port's HP020."""
    out = _validate(tmp_path)
    assert "1 flagged by hipport, 0 unexpected" in out and "HP020" in out, out


@pytest.mark.rocm64
def test_validate_names_hp020_for_the_function_the_backend_points_at_hip64(tmp_path: Path) -> None:
    """HIP 6.4's backend points at the kernel's first line: the HP020 inside it explains it."""
    from tests import hip64

    hip64.require()
    out = _validate(tmp_path, "--toolchain", "hip-6.4", "--rocm", "6.4")
    assert "1 flagged by hipport, 0 unexpected" in out and "lod.cu:2: HP020" in out, out
