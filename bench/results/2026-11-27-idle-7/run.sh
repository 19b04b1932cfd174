#!/bin/bash
# idle measurements after the merges (dist6, nncgpar, kern6)
cd /work/main
O=/tmp/s21/idle
echo "start $(date +%T) $(uptime)" > $O/log
bench/dist_scale.sh --fricon build-mpi-lead/fricon --step /tmp/dist3-pile16k-s1/pile-000036.hdf5 --step /tmp/dist3-pile-s1/pile-000018.hdf5 --tol 1e-4 --sweeps 1500 --check --out $O/dist > $O/dist.txt 2>&1
echo "dist $(date +%T) $(uptime)" >> $O/log
bench/parallel.sh --build build-lead --out /tmp/idle/par --reuse --reps 5 > $O/parallel.txt 2>&1
echo "parallel $(date +%T) $(uptime)" >> $O/log
bench/threads.sh --fricon build-lead/fricon --reps 5 > $O/threads.txt 2>&1
echo "threads $(date +%T) $(uptime)" >> $O/log
for t in 2 1; do
  build-lead/fricon simulate pile --count 2000 --seed 2 --steps 70 --tol 1e-4 --time-limit 5 --threads $t > $O/pile-seed2-threads$t.txt 2>&1
  echo "pile threads $t $(date +%T) $(uptime)" >> $O/log
done
