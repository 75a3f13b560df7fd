"""A library's own spellings of names another table maps, in the files that use that library.

rocBLAS's `*_ex` functions take a `rocblas_datatype`, not the runtime's `hipDataType`, and the
values differ (`rocblas_datatype_f32_r` is 151, `HIP_R_32F` is 0). So with `--blas rocblas` a
file that uses cuBLAS writes `CUDA_R_32F` as `rocblas_datatype_f32_r` (rocblas.toml's
`[overrides]`). A file that also uses a library in the table's `unless` list (cuSPARSE, cuFFT,
hipSOLVER: they take `hipDataType` or a datatype of their own) keeps the runtime spelling, since
one variable may be passed to either (a rocBLAS `*_ex` call then needs its datatype written by
hand; the compiler says where).
"""

from __future__ import annotations

from hipport.rules import Mapping, RuleSet
from hipport.translate.context import Context


def prepare(ctx: Context, names: set[str]) -> None:
    """Decide, from the names a file mentions, which overrides hold in it."""
    rules = ctx.rules
    if not rules.overrides:
        return
    families = _families(rules, names)
    for o in rules.overrides:
        if (families & o.when if o.when else o.family in families) and not families & o.unless and names & o.names.keys():
            ctx.overrides.update(o.names)


def _families(rules: RuleSet, names: set[str]) -> set[str]:
    found = (rules.names.get(n) for n in names)
    return {m.family for m in found if m is not None}


def lookup(ctx: Context, name: str) -> Mapping | None:
    """The mapping of `name` in this file: an override that holds, else the tables'."""
    return ctx.overrides.get(name) or ctx.rules.names.get(name)
