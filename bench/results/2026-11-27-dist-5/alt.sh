#!/bin/bash
# alternate base (main ffcf887) and new (dist5) binaries, 1 and 2 ranks, both steps
cd /work/wt-dist5
for round in 1 2; do
  for b in base new; do
    if [ $b = base ]; then F=/tmp/d5/base/build-mpi/fricon; else F=/work/wt-dist5/build-mpi/fricon; fi
    echo "#### round $round binary $b ($F)"
    bash bench/dist_scale.sh --fricon $F --step /tmp/dist3-pile16k-s1/pile-000036.hdf5 \
      --step /tmp/dist3-pile-s1/pile-000018.hdf5 --tol 1e-4 --sweeps 1500 --out /tmp/d5/out-$b
  done
done
