#!/bin/sh
# Step 1 of issue 33's sixth session: nncg against nncg with the
# Newton-Krylov steps (newton 20, gap 20, krylov 10), 2000 spheres, 70
# steps, tol 1e-4, --time-limit 5; both runs of a seed at once (same load).
# usage: sh run-newton.sh OUTDIR "seeds"   (FRICON: the binary)
d=$1; seeds=$2
for seed in $seeds; do
  sh bench/piles.sh "$d/newton-sim-nncg.txt" 2000 70 nncg "$seed" --time-limit 5 &
  sh bench/piles.sh "$d/newton-sim-newton.txt" 2000 70 nncg "$seed" --time-limit 5 \
     --set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=10 &
  wait
done
