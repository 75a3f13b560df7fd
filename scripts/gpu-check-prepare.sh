#!/usr/bin/env bash
# Gather, on a machine with network and the HIP packages (Debian: hipcc, libamdhip64-dev), all
# that scripts/gpu-check.sh needs on a GPU machine that has nvcc but no network and no package
# access. Everything goes into .gpu-kit/ (it ignores itself through .gpu-kit/.gitignore, so git
# leaves it alone; name it in the device tool's `carry` list so it travels with the tree):
#
#   .gpu-kit/hip/include/hip/   HIP's headers, NVIDIA headers patched for this machine's nvcc
#                               (python -m hipport.validate.hipkit; gpu-check.sh re-checks there)
#   .gpu-kit/hip/bin/           hipcc (a Perl script) and its helpers, for HIP_PLATFORM=nvidia
#   .gpu-kit/pyXY/              hipport's Python dependencies for Python X.Y (tree-sitter is a
#                               compiled module, so one folder per Python version): tree-sitter,
#                               tree-sitter-cuda, typer, rich, pathspec and what they pull in
#                               (about 24 MB). GPU_KIT_MINIMAL=1 carries only the two tree-sitter
#                               packages (9 MB), which the CUDA image lacks; it has the others.
#
# Usage: scripts/gpu-check-prepare.sh
# Environment: GPU_KIT (default .gpu-kit), GPU_KIT_PYTHONS (default "3.12": the CUDA image's
# python3), GPU_KIT_MINIMAL=1, HIP_INCLUDE_SRC (default /usr/include/hip), PYTHON (python3).
# The device tool carries at most 64 MiB with the tree: the kit is about 27 MB (12 MB minimal).
set -euo pipefail
cd "$(dirname "$0")/.."
KIT=${GPU_KIT:-.gpu-kit}
PY=${PYTHON:-python3}
PYVERS=${GPU_KIT_PYTHONS:-3.12}
HIP_SRC=${HIP_INCLUDE_SRC:-/usr/include/hip}

[ -f "$HIP_SRC/hip_runtime.h" ] || { echo "no HIP headers at $HIP_SRC (apt-get install libamdhip64-dev)" >&2; exit 2; }
[ -d "$HIP_SRC/nvidia_detail" ] || { echo "$HIP_SRC has no nvidia_detail/: HIP's NVIDIA path is missing" >&2; exit 2; }

mkdir -p "$KIT"
printf '# Made by scripts/gpu-check-prepare.sh: nothing here is source.\n*\n' > "$KIT/.gitignore"

echo "== HIP headers and hipcc -> $KIT/hip"
rm -rf "$KIT/hip"
mkdir -p "$KIT/hip/include" "$KIT/hip/bin" "$KIT/hip/lib"
cp -r "$HIP_SRC" "$KIT/hip/include/hip"
for f in hipcc hipcc.pl hipvars.pm hipconfig hipconfig.pl; do
  if [ -f "/usr/bin/$f" ]; then cp "/usr/bin/$f" "$KIT/hip/bin/"; fi
done
# hipcc reads $HIP_PATH/lib/.hipInfo: say that this HIP targets NVIDIA through nvcc
printf 'HIP_PLATFORM=nvidia\nHIP_COMPILER=nvcc\nHIP_RUNTIME=cuda\n' > "$KIT/hip/lib/.hipInfo"

if command -v nvcc >/dev/null 2>&1; then
  echo "== patching HIP's NVIDIA headers for $(nvcc --version | grep -o 'release [0-9.]*')"
  PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m hipport.validate.hipkit patch-nvidia "$KIT/hip/include" \
    | tail -n 3
else
  echo "== no nvcc here: gpu-check.sh will patch HIP's NVIDIA headers on the GPU machine"
fi

echo "== Python dependencies"
# Pin the versions tested here; the rest of each dependency tree comes with them.
pins=$("$PY" - <<'EOF'
import importlib.metadata as m
out = []
import os
names = ["tree-sitter", "tree-sitter-cuda"]
if not os.environ.get("GPU_KIT_MINIMAL"):
    names += ["typer", "rich", "pathspec"]
for name in names:
    try:
        out.append(f"{name}=={m.version(name)}")
    except m.PackageNotFoundError:
        out.append(name)
print(" ".join(out))
EOF
)
for v in $PYVERS; do
  tag=${v/./}
  rm -rf "$KIT/py$tag"
  # shellcheck disable=SC2086
  "$PY" -m pip install --quiet --disable-pip-version-check --no-warn-conflicts --target "$KIT/py$tag" \
    --python-version "$v" --implementation cp --only-binary=:all: \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    $pins 2>&1 | grep -v -e "is ignored: it is neither" -e "Running pip as the 'root' user" || true
  [ -d "$KIT/py$tag/tree_sitter" ] || { echo "pip did not install tree-sitter for Python $v" >&2; exit 1; }
  echo "   Python $v: $KIT/py$tag ($(du -sh "$KIT/py$tag" | cut -f1))"
done
find "$KIT" -name __pycache__ -prune -exec rm -rf {} +
echo "== done: $(du -sh "$KIT" | cut -f1) in $KIT (carry it: run's carry=[\"$KIT\"])"
