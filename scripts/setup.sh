#!/usr/bin/env bash
# Set up a fresh Debian 12 machine for hipport: the HIP toolchain (for compile checks),
# Chromium (for the HTML report's browser tests), and hipport itself with its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    g++ git make cmake patch hipcc libamdhip64-dev rocm-device-libs \
    libhipsparse-dev libhiprand-dev librocprim-dev librocsparse-dev librocrand-dev \
    chromium >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
# Byte-compile hipport as a wheel install would: an editable install leaves it to the first
# import, and where PYTHONDONTWRITEBYTECODE is set that means every run compiles every module.
python3 -m compileall -q hipport >/dev/null
