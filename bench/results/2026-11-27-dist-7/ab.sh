#!/bin/bash
# main (c96cfbd) against dist7, 1 and 2 ranks alternated: the setup's parts and the solve's CPU
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MAIN=/tmp/dist7t/main-src/build-mpi/fricon NEW=/work/wt-dist7/build-mpi/fricon
for round in 1 2; do
for f in /tmp/dist3-pile-s1/pile-000018.hdf5 /tmp/dist3-pile16k-s1/pile-000036.hdf5; do
  for np in 1 2; do
    for bin in main dist7; do
      B=$MAIN; [ $bin = dist7 ] && B=$NEW
      echo "== round $round $(basename $f) np $np $bin $(uptime | sed 's/.*load/load/')"
      /usr/bin/time -f "mpirun wall %e s" mpirun -q -np $np /usr/bin/time -f "rank cpu %U s user %S s sys %e s wall" \
        $B solve $f --solver dist-nncg --tol 1e-4 --max-iter 1500 --json --verbose --verbose 2>&1 \
        | grep -E "dist-nncg: waited|dist-nncg: [a-z-]+ after|rank cpu|mpirun wall|\"residual\"" \
        | sed 's/"problem.*"iterations"/"iterations"/; s/, "warm.*//'
    done
  done
done
done
