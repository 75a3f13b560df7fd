#!/usr/bin/env bash
# Set up a fresh Debian 12 machine for hipport: the HIP toolchain (for compile checks),
# Chromium (for the HTML report's browser tests), hipport itself with its test tools, and (as
# root) a second toolchain, HIP 6.4 with the ROCm math libraries' headers, in its own root
# /opt/hipport/hip-6.4 ($HIPPORT_TOOLCHAINS/hip-6.4) made by scripts/hip_root.py from Debian
# sid: 0.5-1.5 minutes and 0.9 GB the first time, a tenth of a second once it is there.
# HIPPORT_NO_HIP_ROOT=1 leaves that root out (its tests are then skipped, or fail where
# HIPPORT_REQUIRE_TOOLCHAINS names it, as CI does); see docs/toolchains.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    g++ git make cmake patch hipcc libamdhip64-dev rocm-device-libs \
    libhipsparse-dev libhiprand-dev librocprim-dev librocsparse-dev librocrand-dev \
    chromium >/dev/null
  if [ "${HIPPORT_NO_HIP_ROOT:-}" = 1 ]; then
    echo "setup: HIPPORT_NO_HIP_ROOT=1: the HIP 6.4 root is not built" >&2
  else
    python3 scripts/hip_root.py sid
  fi
else
  echo "setup: not root with apt-get: no Debian packages installed, no HIP 6.4 root built" >&2
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
# Byte-compile hipport as a wheel install would: an editable install leaves it to the first
# import, and where PYTHONDONTWRITEBYTECODE is set that means every run compiles every module.
python3 -m compileall -q hipport >/dev/null
