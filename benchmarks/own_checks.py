"""Do real kernels, once ported, pass their programs' own checks on the wave emulator?

    python benchmarks/own_checks.py LLM_C_CHECKOUT [--only NAME] [--timeout 300] [-v]

karpathy/llm.c's `dev/cuda/*.cu` programs each run their kernels, compare the result with a
CPU reference ("All results match") and then benchmark. For the ones that do not call cuBLAS
or cuDNN this runs `hipport validate --run` on each, with a `[[programs]]` entry that gives
smaller problem sizes (`shrink`) and stops the program when its own check has passed
(`passed_when`), on the emulator at wave 32 (CUDA's meaning, from the originals) and wave 64
(the port). hipBLAS, which Debian 12 does not package, comes from the declaration stubs in
benchmarks/stubs (every computing call fails, so a program that needs a GEMM fails its check).

Printed: one row per program (its legs and seconds) and how many pass at wave 64.
Nothing is written into the checkout.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUBS = ROOT / "benchmarks" / "stubs"
PASSED = "All results match"
# Programs that print the pass line once per block size: they have passed when the benchmark
# that follows the last check starts.
PASSED_BY = {"layernorm_backward": r"^block_size +[0-9]+ time"}
# Program -> sizes to run at. Channels stay multiples of 32 lanes x 8 packed values (the
# kernels' vector loads); the rest shrink to what the emulator runs in seconds.
PROGRAMS: dict[str, dict[str, int]] = {
    "softmax_forward": {"B": 2, "T": 16, "V": 257},
    "layernorm_forward": {"B": 2, "T": 8, "C": 256},
    "layernorm_backward": {"B": 2, "T": 16, "C": 256},
    "crossentropy_forward": {"B": 2, "T": 16, "V": 257},
    "crossentropy_softmax_backward": {"B": 2, "T": 16, "V": 257},
    "gelu_forward": {"B": 2, "T": 16, "C": 256},
    "gelu_backward": {"B": 2, "T": 16, "C": 256},
    "residual_forward": {"B": 2, "T": 16, "C": 256},
    "fused_residual_forward": {"B": 2, "T": 16, "C": 256},
    "encoder_forward": {"B": 2, "T": 16, "C": 256, "V": 257},
    "encoder_backward": {"B": 2, "T": 16, "C": 256, "V": 257},
    "adamw": {"num_parameters": 4096},
    "global_norm": {"C": 256, "L": 2},
    "classifier_fused": {"B": 2, "T": 16, "V": 257},
    "permute": {"dim_1": 2, "dim_2": 3, "dim_3": 4, "dim_4": 32},
}


def entry(cuda: Path, name: str, sizes: dict[str, int]) -> str:
    shrink = ", ".join(f"{k} = {v}" for k, v in sizes.items())
    return (f"[[programs]]\nname = {json.dumps(name)}\nsources = [{json.dumps(str(cuda / (name + '.cu')))}]\n"
            f"include = [{json.dumps(str(STUBS))}]\npassed_when = {json.dumps(PASSED_BY.get(name, PASSED))}\n"
            f"shrink = {{ {shrink} }}\n")


def run_one(cuda: Path, name: str, sizes: dict[str, int], timeout: float, work: Path) -> dict:
    toml = work / f"{name}.toml"
    toml.write_text(entry(cuda, name, sizes))
    cmd = [sys.executable, "-m", "hipport", "validate", str(cuda), "--include", f"{name}.cu",
           "--include", "common.h", "--run", "--programs", str(toml), "--no-compile", "--no-gpu",
           "--timeout", str(timeout), "--format", "json", "--no-cache", "--work-dir", str(work / name)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - t0
    try:
        legs = json.loads(p.stdout)["details"]["runs"][0]["emulator"]
    except (ValueError, KeyError, IndexError):
        return {"name": name, "error": (p.stderr or p.stdout).strip()[-500:], "seconds": seconds}
    return {"name": name, "seconds": seconds,
            "legs": {k: (v["status"], v.get("reason") or "") for k, v in legs.items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="a checkout of karpathy/llm.c")
    ap.add_argument("--only", action="append", help="only this program (repeatable)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per emulated run")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each leg's reason")
    args = ap.parse_args(argv)
    cuda = args.path / "dev" / "cuda"
    if not cuda.is_dir():
        ap.error(f"{cuda}: not a folder (give a checkout of karpathy/llm.c)")
    names = [n for n in PROGRAMS if not args.only or n in args.only]
    passed = 0
    print("| program | ref32 | port64 | unfixed64 | seconds |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="hipport-own-checks-") as tmp:
        for name in names:
            r = run_one(cuda, name, PROGRAMS[name], args.timeout, Path(tmp))
            if "error" in r:
                print(f"| {name} | error | error | error | {r['seconds']:.0f} |")
                print(f"  {r['error']}")
                continue
            legs = r["legs"]
            passed += legs.get("port64", ("",))[0] == "pass"
            cells = " | ".join(legs.get(k, ("-", ""))[0] for k in ("ref32", "port64", "unfixed64"))
            print(f"| {name} | {cells} | {r['seconds']:.0f} |", flush=True)
            if args.verbose:
                for k, (status, reason) in legs.items():
                    if reason:
                        print(f"  {k}: {status}: {reason[:300]}")
    print(f"\n{passed} of {len(names)} programs pass their own check at wave 64")
    return 0 if passed == len(names) else 1


if __name__ == "__main__":
    sys.exit(main())
