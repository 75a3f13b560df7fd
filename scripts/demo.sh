#!/usr/bin/env bash
# The main job on the bundled examples: port them, check the port with hipcc (gfx90a) and the
# wave emulator (32 vs 64 lanes), and write the HTML porting report. Results land in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p out
echo "== hipport port examples -> out/examples-hip (report: out/report/index.html)"
hipport port examples -o out/examples-hip --report out/report
echo
echo "== hipport lint examples (findings left for a person)"
hipport lint examples --fail-on never --format text | tail -n 25
echo
echo "== hipport validate examples --run (hipcc for gfx90a; emulator at wave 32 and 64)"
hipport validate examples --run
