#!/bin/bash
# usage: budget.sh DIR OUT : nncg to 1e-4 within 5000 sweeps, warm, cluster off / budgets
F=/work/main/build-lead/fricon
for f in $1/pile-*.hdf5; do
  for b in ${BUDGETS:-off 0.15 0.35 1e9}; do
    if [ $b = off ]; then s="--set nncg.cluster=0"; else s="--set nncg.cluster=24 --set nncg.cluster_chains=1 --set nncg.cluster_budget=$b"; fi
    o=$( { /usr/bin/time -f 'cpu %U' $F solve $f --solver nncg --tol 1e-4 --max-iter 5000 --time-limit 100 $s --verbose ; } 2>&1 | grep -E '^status|^iterations|^residual|^cpu' | awk '{print $2}' | tr '\n' ' ')
    echo "$(basename $f) $b $o"
  done
done > $2
