#!/bin/sh
# The Newton-Krylov runs of docs/granular-piles.md (commits b3773e8..0124c08 of branch piles).
# Problems: fricon simulate pile --count 2000 --seed 11|12 --steps 70 --tol 1e-4 --time-limit 1 --export DIR --every 10;
#   --count 1000 --seed 13 --steps 60 (same); --count 2000 --seed 14 --steps 60 --time-limit 3 --export-from 40 --every 10.
# run1.sh FILE TOL ARGS: one line (status, sweeps, error, CPU s, Newton steps and Krylov iterations)

# usage: run1.sh FILE TOL extra-args...  -> one line: args, status, sweeps, newton, krylov, residual, cpu
f=$1; tol=$2; shift 2
out=$( { /usr/bin/time -f "cpu=%U" nice -n 10 ${BIN:-/work/wt-piles/build/fricon} solve $f --solver nncg --tol $tol --verbose --json "$@" ; } 2>&1 )
st=$(echo "$out" | grep -o '"status": "[a-z-]*"' | cut -d'"' -f4)
its=$(echo "$out" | grep -o '"iterations": [0-9]*' | cut -d' ' -f2)
res=$(echo "$out" | grep -o '"residual": [0-9.e+-]*' | cut -d' ' -f2)
nk=$(echo "$out" | grep -o 'nncg: [0-9]* Newton-Krylov steps ([0-9]* taken), [0-9]* Krylov' | sed 's/nncg: //')
cpu=$(echo "$out" | grep -o 'cpu=[0-9.]*')
echo "$(basename $f) $* | $st sweeps=$its res=$res $cpu | $nk"
# for f in p2000-s11/pile-000050.hdf5 p2000-s11/pile-000070.hdf5; do
#  for mode in "" "--cold"; do
#   for c in "" "--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=5" "--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=15" "--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=10 --set nncg.newton_gs=1" "--set nncg.newton=20 --set nncg.newton_gap=10 --set nncg.krylov=5"; do
#    ./run1.sh $f 1e-4 --max-iter 2000 --time-limit 60 $mode $c
#   done
#  done
# done
# # held-out steps: seed 12 (2000 spheres) and seed 13 (1000 spheres); nothing tuned on them
# for f in p2000-s12/pile-000010.hdf5 p2000-s12/pile-000040.hdf5 p2000-s12/pile-000060.hdf5 p2000-s12/pile-000070.hdf5 p1000-s13/pile-000020.hdf5 p1000-s13/pile-000040.hdf5 p1000-s13/pile-000060.hdf5; do
#  for mode in "" "--cold"; do
#   for c in "" "--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=5" "--set nncg.newton=20 --set nncg.newton_gap=10 --set nncg.krylov=5"; do
#    ./run1.sh $f 1e-4 --max-iter 2000 --time-limit 60 $mode $c
#   done
#  done
#  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
# done
# # held-out settled steps: seed 14 (2000 spheres, exported with a 3-s limit); nothing tuned on them
# for f in p2000-s14/pile-000040.hdf5 p2000-s14/pile-000050.hdf5 p2000-s14/pile-000060.hdf5; do
#  for mode in "" "--cold"; do
#   for c in "" "--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=5"; do
#    ./run1.sh $f 1e-4 --max-iter 2000 --time-limit 120 $mode $c
#   done
#  done
#  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
# done
# # held-out hard steps (seed 14 settled, seed 12 step 60): nncg against the Newton-Krylov steps
# # (chain build); one binary copy for the whole run
# export BIN=/tmp/pl/fricon-judge3
# for f in p2000-s14/pile-000040.hdf5 p2000-s14/pile-000050.hdf5 p2000-s14/pile-000060.hdf5 p2000-s12/pile-000060.hdf5; do
#  for mode in "" "--cold"; do
#   for c in "" "--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=5" "--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=10"; do
#    ./run1.sh $f 1e-4 --max-iter 2000 --time-limit 120 $mode $c
#   done
#  done
#  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
# done
