#!/bin/bash
# Per-thread CPU a phase of a 2-thread stretches' sweep (the trace build:
# trace.patch, -DFC_NSGS_TRACE), nsgs.renumber 2 (off) and 1 (on)
# alternated, cold, K plain sweeps, error measured at the last only; then
# 1 thread (file order) for reference.
# usage: trace.sh BIN FILE [ROUNDS] [K] [LEVEL_MIN]
BIN=$1 F=$2 N=${3:-3} K=${4:-110} LM=${5:-0}
run() {
  echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) threads $1 renumber $2 level_min $LM GOMP_SPINCOUNT=3000 cold $K plain sweeps"
  GOMP_SPINCOUNT=3000 "$BIN" solve "$F" --solver nsgs --cold --tol 1e-300 --max-iter "$K" --threads "$1" \
    --set nsgs.anderson=0 --set nsgs.error_every="$K" --set nsgs.level_min="$LM" --set nsgs.renumber="$2" --json 2>&1 |
    grep -E '^trace|"seconds"'
}
for ((i = 0; i < N; i++)); do run 2 2; run 2 1; done
run 1 0
