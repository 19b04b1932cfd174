#!/bin/sh
# usage: simh.sh TAG SEED OUT [--set ...]: the pile, 70 steps, nncg at most 1500 sweeps a step
tag=$1; seed=$2; out=$3; shift 3
log=$(mktemp)
/usr/bin/time -f "cpu %U s" nice -n 10 /tmp/p8/fricon-focus2 simulate pile --count 2000 --seed $seed --steps 70 --tol 1e-4 --solver nncg --time-limit 0 --max-iter 1500 "$@" > $log 2>&1
echo "tag=$tag seed=$seed args='$*' load=$(cut -d' ' -f1 /proc/loadavg) $(grep -E 'contacts:|per step:|per solve:|not converged:|^cpu' $log | tr -s ' ' | tr '\n' ' ')" >> $out
cp $log $out.$tag-seed$seed.log; rm -f $log
