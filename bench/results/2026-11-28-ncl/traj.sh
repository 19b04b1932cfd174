#!/bin/bash
# traj.sh DIR OUT: nncg to 1e-4 (at most 6000 sweeps, warm from each step's
# .sol) at 1 thread (file order) and 2 threads (slabs), the defaults
# otherwise; the whole log kept (the errors at the measurements).
B=${B:-/work/wt-ncl/build/fricon}
DIR=$1; OUT=$2
mkdir -p $OUT
for f in $DIR/pile-0000*.hdf5; do
  for T in 1 2; do
    $B solve $f --solver nncg --tol 1e-4 --max-iter 6000 --threads $T --verbose --verbose > $OUT/$(basename $f .hdf5)-t$T.log 2>&1
  done
done
