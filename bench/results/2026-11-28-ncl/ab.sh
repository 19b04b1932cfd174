#!/bin/bash
# ab.sh FILE ROUNDS OUT: nncg 1000 sweeps (warm, tol 1e-9) alternated over
# the configurations below; each line: config, load, the log's timings.
F=$1; R=$2; OUT=$3
BASE=${BASE:-/tmp/ncl-base/build/fricon}; NEW=${NEW:-/work/wt-ncl/build/fricon}
for i in $(seq $R); do
  for cfg in "base 1" "new 1" "base 2" "new 2 1" "new 2 4" "new 2 2" "new 2 3"; do
    set -- $cfg
    b=$BASE; [ $1 = new ] && b=$NEW
    extra=""; [ -n "$3" ] && extra="--set nncg.cluster_par=$3"
    t0=$(date +%s.%N)
    log=$($b solve $F --solver nncg --tol 1e-9 --max-iter 1000 --threads $2 $extra --verbose 2>&1)
    t1=$(date +%s.%N)
    echo "round=$i $1 threads=$2 par=${3:-auto} load=$(cut -d' ' -f1 /proc/loadavg) proc_wall=$(echo "$t1 - $t0" | bc) | $(echo "$log" | grep -E "nncg: max-iter|nncg: converged|cluster_par|parts' sweeps" | tr '\n' '|')"
  done
done > $OUT
