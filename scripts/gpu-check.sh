#!/usr/bin/env bash
# One prepared command for a machine with an NVIDIA GPU and nvcc, but no network and no package
# access: runs `hipport validate --run` over examples/ (or the given paths) with the GPU path on:
# each program's CUDA original is built with nvcc, its port with HIP's NVIDIA path
# (nvcc with HIP's headers, called directly), both run on the GPU and compared;
# the wave emulator legs (wave 32 CUDA reference / wave 64 port / wave 64 unfixed) run too.
# Then the emulator's wave-32 output is compared with the GPU's for every program validate ran
# and for the conformance programs (tests/conformance/: one CUDA program per intrinsic family, run
# at wave 32 and built with nvcc for the GPU): a table at the end of summary.txt
# (python -m hipport.validate.gpucompare; without a GPU its rows say "not compared" and why).
#
# Needs .gpu-kit/ from scripts/gpu-check-prepare.sh (run that first, where there is network, and
# carry .gpu-kit with the tree). Writes into $OUT (or ./gpu-check-out/), at most 7 files:
#   summary.txt      the terminal table, the verdict, and the emulator-vs-GPU table (read this first)
#   emulator-vs-gpu.json  that table's rows (program, kernels, GPU, result, why)
#   validate.json    the full result (hipport validate --format json)
#   validate.log     validate's stderr
#   environment.txt  nvidia-smi -L, nvcc, python, perl, g++ versions; which HIP compiler was used
#   hipkit.txt       the re-check of HIP's NVIDIA headers against this nvcc
#   exit-code.txt    the exit status: 0 all passed and the emulator printed what the GPU printed,
#                    1 something failed or differed, 2 usage error
#
# Usage: scripts/gpu-check.sh [PATH...]     (default: examples/)
# Environment: OUT, GPU_KIT (default .gpu-kit), PYTHON (default python3), GPU_CHECK_TIMEOUT
# (seconds per program run, default 120), GPU_CHECK_ARGS (extra validate arguments),
# GPU_CHECK_PROGRAMS (CUDA programs or folders compared directly, default tests/conformance/;
# empty: none).
# The emulator half alone (no GPU, no kit): python3 -m hipport.validate.gpucompare --no-gpu
#   --programs tests/conformance/
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
KIT=${GPU_KIT:-.gpu-kit}
OUTDIR=${OUT:-$ROOT/gpu-check-out}
PY=${PYTHON:-python3}
mkdir -p "$OUTDIR"
[ $# -gt 0 ] || set -- examples/

if [ ! -d "$KIT/hip/include/hip" ]; then
  echo "no $KIT/hip: run scripts/gpu-check-prepare.sh first (on a machine with network) and carry $KIT" \
    | tee "$OUTDIR/summary.txt" >&2
  echo 2 > "$OUTDIR/exit-code.txt"
  exit 2
fi
tag=$("$PY" -c 'import sys; print("%d%d" % sys.version_info[:2])')
if [ -d "$KIT/py$tag" ]; then
  export PYTHONPATH="$ROOT/$KIT/py$tag:$ROOT${PYTHONPATH:+:$PYTHONPATH}"
else
  echo "warning: no $KIT/py$tag (Python dependencies for this python3); trying the installed ones" >&2
  export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONDONTWRITEBYTECODE=1
if ! missing=$("$PY" -c 'import tree_sitter, tree_sitter_cuda, typer, rich, pathspec' 2>&1); then
  { echo "hipport's Python dependencies do not import with $PY (Python $tag):"; echo "$missing"
    echo "make the kit with GPU_KIT_PYTHONS=<this version> (and without GPU_KIT_MINIMAL)"
  } | tee "$OUTDIR/summary.txt" >&2
  echo 2 > "$OUTDIR/exit-code.txt"
  exit 2
fi
export HIPPORT_HIP_PATH="$ROOT/$KIT/hip"
export HIP_PATH="$ROOT/$KIT/hip"
# hipport calls nvcc with the kit's HIP headers itself: hipcc (a Perl script that hands
# arguments to a shell) is never run, so the kit's copy is not used.
if [ -z "${CUDA_PATH:-}" ]; then
  for c in "$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")" /usr/local/cuda; do
    if [ -f "$c/include/cuda_runtime.h" ]; then export CUDA_PATH=$c; break; fi
  done
fi
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/hipport-gpu-check-cache}

{
  echo "## nvidia-smi -L"; nvidia-smi -L 2>&1
  echo "## nvcc"; nvcc --version 2>&1 | tail -n 2
  echo "## python"; "$PY" --version 2>&1; echo "PYTHONPATH=$PYTHONPATH"
  echo "## perl"; perl -e 'print "perl $^V\n"' 2>&1 || echo "no perl"
  echo "## g++"; g++ --version 2>&1 | head -n 1
  echo "## CUDA_PATH=${CUDA_PATH:-unset}"
} > "$OUTDIR/environment.txt"

# HIP's NVIDIA headers were patched for the nvcc where the kit was made; check (and patch) here.
"$PY" -m hipport.validate.hipkit patch-nvidia "$KIT/hip/include" > "$OUTDIR/hipkit.txt" 2>&1
"$PY" - >> "$OUTDIR/environment.txt" 2>&1 <<'EOF'
from hipport.validate import toolchains as t
h = t.nvidia_hip()
print("## HIP on NVIDIA via:", h.how, " ".join(h.prefix), ("ERROR: " + h.error) if h.error else "")
print("## GPUs:", t.nvidia_gpus(), t.amd_gpus())
EOF

WORK=$(mktemp -d /tmp/hipport-gpu-check.XXXXXX)
# shellcheck disable=SC2086
"$PY" -m hipport validate "$@" --run --no-cache --format json --work-dir "$WORK" \
  --timeout "${GPU_CHECK_TIMEOUT:-120}" ${GPU_CHECK_ARGS:-} > "$OUTDIR/validate.json" 2> "$OUTDIR/validate.log"
rc=$?
{
  echo "hipport validate --run $* (exit $rc)"
  if [ -s "$OUTDIR/validate.json" ]; then
    "$PY" -m hipport.validate.views "$OUTDIR/validate.json"
  else
    echo "no JSON result; the last lines of validate.log:"; tail -n 30 "$OUTDIR/validate.log"
  fi
} > "$OUTDIR/summary.txt" 2>&1
rm -rf "$WORK"

# The emulator's wave-32 output against the GPU's: validate's programs, then the conformance set.
cmp_args=()
[ -s "$OUTDIR/validate.json" ] && cmp_args+=(--validate-json "$OUTDIR/validate.json")
read -r -a progs <<< "${GPU_CHECK_PROGRAMS-tests/conformance/}"
[ ${#progs[@]} -gt 0 ] && cmp_args+=(--programs "${progs[@]}")
if [ ${#cmp_args[@]} -gt 0 ]; then
  echo >> "$OUTDIR/summary.txt"
  "$PY" -m hipport.validate.gpucompare "${cmp_args[@]}" --timeout "${GPU_CHECK_TIMEOUT:-120}" \
    --json "$OUTDIR/emulator-vs-gpu.json" >> "$OUTDIR/summary.txt" 2>&1
  crc=$?
  echo "emulator vs GPU: exit $crc (0: nothing differs, 1: a row differs)" >> "$OUTDIR/summary.txt"
  [ "$rc" -eq 0 ] && [ "$crc" -ne 0 ] && rc=1
fi
echo "$rc" > "$OUTDIR/exit-code.txt"
cat "$OUTDIR/summary.txt"
exit "$rc"
