#!/bin/bash
F=/work/main/build-lead/fricon
for f in "$@"; do
  for v in off on; do
    if [ $v = off ]; then s="--set nncg.cluster=0"; else s="--set nncg.cluster=24 --set nncg.cluster_chains=1"; fi
    for solver in nncg auto; do
    o=$( { /usr/bin/time -f 'cpu %U' $F solve $f --solver $solver --tol 1e-4 --max-iter 5000 --time-limit 100 $s --verbose ; } 2>&1 | grep -E 'nc =|^status|^iterations|^residual|^cpu|cluster passes' | sed 's/.*(gfc.d, nc = \([0-9]*\))/\1/; s/nncg: \([0-9]*\) cluster passes.*/passes=\1/' | awk '{print ($2==""?$1:$2)}' | tr '\n' ' ')
    echo "$(basename $f) $solver $v $o"
    done
  done
done
