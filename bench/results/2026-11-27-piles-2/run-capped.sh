#!/bin/sh
# The pile at a fixed work cap instead of a wall-time limit (the machine is
# shared, so a wall limit measures the load): 2000 spheres, 50 steps,
# tol 1e-4, --time-limit 0 --max-iter 1500; nncg, the Newton-Krylov steps
# (newton 20, gap 20, krylov 10) and those with J + 0.1 I, all three at once.
# usage: sh run-capped.sh OUTDIR "seeds"   (FRICON: the binary)
d=$1; seeds=$2
nk="--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=10"
for seed in $seeds; do
  sh bench/piles.sh "$d/capped-nncg.txt" 2000 50 nncg "$seed" --time-limit 0 --max-iter 1500 &
  # shellcheck disable=SC2086
  sh bench/piles.sh "$d/capped-nk.txt" 2000 50 nncg "$seed" --time-limit 0 --max-iter 1500 $nk &
  # shellcheck disable=SC2086
  sh bench/piles.sh "$d/capped-nk-reg.txt" 2000 50 nncg "$seed" --time-limit 0 --max-iter 1500 $nk \
     --set nncg.newton_reg=0.1 &
  wait
done
