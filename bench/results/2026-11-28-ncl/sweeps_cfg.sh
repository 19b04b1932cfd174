#!/bin/bash
# sweeps_cfg.sh DIR OUT THREADS [--set ...]: nncg to 1e-4 (at most 6000
# sweeps) on DIR's steps, warm from each step's .sol, one configuration.
B=${B:-/work/wt-ncl/build/fricon}
DIR=$1; OUT=$2; T=$3; shift 3
for f in $DIR/pile-0000*.hdf5; do
  line=$($B solve $f --solver nncg --tol 1e-4 --max-iter 6000 --threads $T "$@" --verbose 2>&1 | grep -E "nncg: (converged|max-iter|time)" | tail -1)
  echo "$(basename $f) threads=$T $* load=$(cut -d' ' -f1 /proc/loadavg) $line"
done > $OUT
