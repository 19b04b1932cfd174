#!/bin/bash
# The 2-thread detection's timeline per step (issue 28): builds
# build-trace/ with -DFC_DTRACE (FC_DMARK in src/mbd/broadphase.c and
# detect.c record each thread's wall time at the detection's barriers and
# phases; compiled out of every other build), runs bench_detect's
# side-by-side steps (a pile of N spheres, default 10^4; L steps, default
# 20) and prints the timelines (OUT, default detect-trace.txt) and their
# summary (bench/detect_trace.py: each thread's work between barriers,
# each barrier's wait and release lag, the worker's lateness at the
# region's start).  The wait between OpenMP regions as the CLI's
# (bench/wait_rule.sh) unless set.
# usage: bench/detect_trace.sh [--count N] [--lockstep L] [--out OUT]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
COUNT=10000 L=20 OUT=detect-trace.txt
while [ $# -gt 0 ]; do
  case "$1" in
    --count) COUNT=$2; shift 2 ;;
    --lockstep) L=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: bench/detect_trace.sh [--count N] [--lockstep L] [--out OUT]" >&2; exit 2 ;;
  esac
done
cmake -S "$HERE/.." -B "$HERE/../build-trace" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-DFC_DTRACE >/dev/null
cmake --build "$HERE/../build-trace" -j2 --target bench_detect >/dev/null
. "$HERE/wait_rule.sh"
fricon_wait_rule
{
  echo "# bench/detect_trace.sh $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-(unset)}"
  "$HERE/../build-trace/bench_detect" --count "$COUNT" --reps 1 --lockstep "$L"
  echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT"
python3 "$HERE/detect_trace.py" "$OUT"
