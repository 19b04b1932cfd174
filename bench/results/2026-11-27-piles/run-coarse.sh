#!/bin/sh
# nncg.coarse (the coarse correction over aggregates of contacts) against
# plain nncg, cold, tol 1e-4, at most 3000 sweeps or 15 s wall; CPU
# seconds by /usr/bin/time.  Run from the worktree root, built at commit
# 2d70369 (modes 1, 2: tune, held) or 505a3b0 (mode 3, rigid clusters:
# rigid) of branch coarse (nncg.coarse is not in the tree after them).
# Problems: the bundled steps, /tmp/pile7 (`fricon simulate pile --count
# 2000 --seed 7 --steps 70 --tol 1e-4 --time-limit 2 --export /tmp/pile7
# --every 10`, tuning) and /tmp/coarse-pile3 (the same with --seed 3,
# held out).  Usage: run-coarse.sh tune | held | rigid | fixed
out=bench/results/2026-11-27-piles
one() {
  f=$1; shift
  printf '%s %s: ' "$(basename $f)" "$*"
  /usr/bin/time -f "cpu %U" build/fricon solve $f --solver nncg --cold --tol 1e-4 --max-iter 3000 \
    --time-limit 15 --json --verbose "$@" 2>&1 | grep -E '^\{|^cpu|nncg coarse:' | tr '\n' ' ' |
    sed 's/"problem".*"solver": "nncg", //'
  echo
}
if [ "$1" = tune ]; then
  for f in examples/pile300-step30.hdf5 examples/pile-step24.hdf5 /tmp/pile7/pile-000060.hdf5 /tmp/pile7/pile-000030.hdf5; do
    one $f
    one $f --set nncg.coarse=1
    one $f --set nncg.coarse=1 --set nncg.coarse_keep=1
    one $f --set nncg.coarse=1 --set nncg.coarse_keep=1 --set nncg.coarse_size=10 --set nncg.coarse_every=8
    one $f --set nncg.coarse=1 --set nncg.coarse_keep=1 --set nncg.coarse_size=100 --set nncg.coarse_every=32
    one $f --set nncg.coarse=2
  done
elif [ "$1" = rigid ]; then
  for f in examples/pile-step24.hdf5 /tmp/pile7/pile-000060.hdf5 /tmp/coarse-pile3/pile-000060.hdf5; do
    one $f --time-limit 40
    one $f --time-limit 40 --set nncg.coarse=3 --set nncg.coarse_size=4
    one $f --time-limit 40 --set nncg.coarse=3 --set nncg.coarse_size=10
    one $f --time-limit 40 --set nncg.coarse=3 --set nncg.coarse_size=10 --set nncg.coarse_keep=1
  done
elif [ "$1" = held ]; then
  for f in /tmp/coarse-pile3/pile-0000[4-7]0.hdf5; do
    one $f
    one $f --set nncg.coarse=1 --set nncg.coarse_keep=1
    one $f --set nncg.coarse=1
  done
fi
# fixed: the error after 800 sweeps (no time limit: the wall limits above
# left each run a different number of sweeps on the loaded machine)
if [ "$1" = fixed ]; then
  for f in /tmp/coarse-pile3/pile-000040.hdf5 /tmp/coarse-pile3/pile-000060.hdf5 /tmp/pile7/pile-000060.hdf5; do
    one $f --max-iter 800 --time-limit 0
    one $f --max-iter 800 --time-limit 0 --set nncg.coarse=1 --set nncg.coarse_keep=1
    one $f --max-iter 800 --time-limit 0 --set nncg.coarse=3 --set nncg.coarse_size=10 --set nncg.coarse_keep=1
  done
fi
