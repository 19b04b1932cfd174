#!/bin/bash
# main's binary against this branch's, alternated, ROUNDS rounds, each a
# bench/dist_scale.sh run over the steps (1 and 2 ranks, own sessions).
# usage: ab.sh MAIN_FRICON BRANCH_FRICON ROUNDS STEP... > ab.txt
HERE=$(cd "$(dirname "$0")/../.." && pwd)
A=$1 B=$2 R=$3; shift 3
ST=(); for s in "$@"; do ST+=(--step "$s"); done
for i in $(seq "$R"); do
  for bin in "$A" "$B"; do
    echo "#### round $i: $bin ($(date -u +%H:%M:%S), $(cut -d' ' -f1-3 /proc/loadavg))"
    bash "$HERE/dist_scale.sh" --fricon "$bin" --tol 1e-4 --sweeps 1500 --own-sessions --out /tmp/dist8/bench-dist "${ST[@]}"
  done
done
