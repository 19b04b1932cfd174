#!/bin/bash
# sweeps.sh DIR OUT [extra --set ...]: nncg to 1e-4 on DIR's steps, warm from
# each step's .sol, at 1 thread and at 2 threads with nncg.cluster_par 1 and 3.
B=${B:-/work/wt-ncl/build/fricon}
DIR=$1; OUT=$2; shift 2
for f in $DIR/pile-0000*.hdf5; do
  for cfg in "1 0" "2 1" "2 3"; do
    set -- $cfg
    line=$($B solve $f --solver nncg --tol 1e-4 --max-iter 6000 --threads $1 --set nncg.cluster_par=$2 "${@:3}" $EXTRA --verbose 2>&1 | grep -E "nncg: (converged|max-iter|time)" | tail -1)
    echo "$(basename $f) threads=$1 par=$2 load=$(cut -d' ' -f1 /proc/loadavg) $line"
  done
done > $OUT
