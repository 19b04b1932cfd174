#!/bin/bash
# main's binary (ff05047, built from git archive in /tmp/dist6-base) and
# dist6's alternated, 1 and 2 ranks each, ROUNDS rounds on the given
# steps to 1e-4 within SWEEPS sweeps; per-rank CPU from
# bench/dist_scale.sh's lines.  Not niced: short runs on a loaded machine,
# compared in CPU seconds.
# usage: ab.sh BASE_FRICON NEW_FRICON ROUNDS OUTDIR SWEEPS STEP...
BASE=$1 NEW=$2 ROUNDS=$3 OUT=$4 SWEEPS=$5
shift 5
STEPS=()
for s in "$@"; do STEPS+=(--step "$s"); done
HERE=$(cd "$(dirname "$0")" && pwd)
for r in $(seq 1 "$ROUNDS"); do
  for b in base new; do
    bin=$BASE; [ $b = new ] && bin=$NEW
    echo "#### round $r, $b ($bin)"
    bash "$HERE/../../dist_scale.sh" --fricon "$bin" "${STEPS[@]}" --tol 1e-4 --sweeps "$SWEEPS" --out "$OUT"
  done
done
