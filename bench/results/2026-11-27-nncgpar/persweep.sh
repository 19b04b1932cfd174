#!/bin/bash
# CPU and wall of nncg's iterations per sweep, threads 1 and 2 alternated
# (R rounds), a fixed count of sweeps (tolerance 1e-12 not reached):
# the iterations' CPU (clock(), all threads) and wall from nncg's log,
# and at 2 threads the parts' thread CPU (sum, longest) and the
# interface's: the sweep's critical path, which the load does not inflate.
# usage: persweep.sh FRICON SWEEPS ROUNDS ORDER FILE...
B=$1; N=$2; R=$3; O=$4; shift 4
for f in "$@"; do
  for k in $(seq $R); do
    for t in 1 2; do
      all=$(nice -n 10 $B solve $f --solver nncg --tol 1e-12 --max-iter $N --time-limit 0 --threads $t \
            --set nncg.order=$O --verbose 2>&1)
      out=$(echo "$all" | grep -oE "after [0-9]+ sweeps.*s wall")
      parts=$(echo "$all" | grep -oE "parts' sweeps.*CPU$")
      sw=$(echo "$out" | grep -oE "after [0-9]+" | grep -oE "[0-9]+")
      cpu=$(echo "$out" | grep -oE "[0-9.]+ s CPU" | grep -oE "[0-9.]+")
      wall=$(echo "$out" | grep -oE "[0-9.]+ s wall" | grep -oE "[0-9.]+")
      echo "$(basename $f) order $O threads $t round $k: $sw sweeps, ms/sweep CPU $(echo "scale=3; 1000*$cpu/$sw" | bc) wall $(echo "scale=3; 1000*$wall/$sw" | bc) (load $(cut -d' ' -f1 /proc/loadavg)) $parts"
    done
  done
done
