#!/bin/sh
# nncg.body_passes (body-block relaxation) against plain nncg, cold, tol 1e-4.
# usage: sh run-body.sh FILE...   (from the worktree root, build/ built at
# commit fbad932 of branch body: nncg.body_passes is not in later trees)
# KCS="0:3000 1:1600" picks the (passes:cap) pairs.
# Per run: outer sweeps, work in sweeps (one-contact updates / nc), error, CPU s (user).
# Caps of about 3000 sweeps of work: k=0 3000, k=1 1600 (1.86 sweeps of work
# each), k=2 800 (3.7), k=3 550 (5.5).
for f in "$@"; do
  for kc in ${KCS:-0:3000 1:1600 2:800 3:550}; do
    k=${kc%:*}; cap=${kc#*:}
    out=$(nice -n 19 /usr/bin/time -f "cpu %U" build/fricon solve "$f" --solver nncg --tol 1e-4 --cold \
          --max-iter "$cap" --set nncg.body_passes="$k" --verbose 2>&1 | grep -E 'nncg:|^cpu' | tr '\n' ' ')
    echo "$f body_passes=$k max-iter=$cap: $out"
  done
done
