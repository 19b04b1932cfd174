#!/bin/sh
# The start of the Newton corrector: nncg's sweeps on the theta-law at
# theta = 0.85, with the build of ../2026-11-29-theta/theta.patch (applied
# on 6dfc4e8).  usage: sh th085.sh THETA_BUILD/fricon PROBLEM.hdf5 OUT.sol
# The session's own start (th0.85.sol, 4.06e-5 in the law's measure) came
# from an earlier run of that build; this command on 1 thread gives
# another iterate of the same quality (5.8e-5 after 4000 sweeps).
FC_SW=0.85 FC_MSW=0.85 "$1" solve "$2" --cold --solver nncg \
    --set nncg.local=1 --set nncg.cluster=0 --max-iter 4000 --tol 1e-6 \
    --output "$3"
