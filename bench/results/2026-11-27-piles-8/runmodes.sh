#!/bin/sh
# usage: runmodes.sh DIR SOLVER "steps" [extra args]: sweeps and CPU to 1e-4 from each warm-start mode's guess
d=$1; s=$2; steps=$3; shift 3
for k in $steps; do
  f0=$(printf '%s/pile-%06d.hdf5' $d $k)
  for m in 0 1 2; do
    f=$f0; [ $m -gt 0 ] && f=$(printf '%s/pile-%06d-mode%d.hdf5' $d $k $m)
    out=$( { /usr/bin/time -f 'cpu %U' nice -n 10 /tmp/p8/fricon-main solve $f --solver $s --tol 1e-4 --max-iter 4000 --time-limit 120 --json "$@"; } 2>&1 | tr '\n' ' ')
    echo "step $k mode $m load $(cut -d' ' -f1 /proc/loadavg) $out"
  done
done
