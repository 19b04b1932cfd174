#!/bin/sh
# usage: sim.sh MODE SEED SOLVER OUT [args]: the pile, 70 steps, with warm-start mode MODE
m=$1; seed=$2; s=$3; out=$4; shift 4
log=$(mktemp)
FC_WARM_MODE=$m /usr/bin/time -f "cpu %U s" nice -n 10 /tmp/p8/fricon-exp simulate pile --count 2000 --seed $seed --steps 70 --tol 1e-4 --solver $s "$@" > $log 2>&1
echo "mode=$m seed=$seed solver=$s args='$*' load=$(cut -d' ' -f1 /proc/loadavg) $(grep -E 'contacts:|per step:|per solve:|not converged:|^cpu' $log | tr -s ' ' | tr '\n' ' ')" >> $out
cp $log $out.mode$m-seed$seed-$s.log; rm -f $log
