#!/bin/bash
# Sweeps of nncg to 1e-4 by nncg.order (3 file, 4 stretches, 5 slabs) at
# 2 threads, cold and warm (the simulator's guess, FILE.sol), on exported
# pile steps: the sweeps do not depend on the load.
# usage: [STARTS="warm cold"] [ORDERS="3 4 5"] sweeps.sh FRICON FILE...
B=$1; shift
for f in "$@"; do
  for start in ${STARTS:-warm cold}; do
    c=; [ $start = cold ] && c=--cold
    line="$(basename $(dirname $f))/$(basename $f) $start"
    for o in ${ORDERS:-3 4 5}; do
      out=$(nice -n 10 $B solve $f --solver nncg --tol 1e-4 --max-iter 4000 --time-limit 0 --threads 2 $c \
            --set nncg.order=$o --verbose --verbose 2>&1)
      nc=$(echo "$out" | grep -o "for [0-9]* contacts, [0-9]* at the interface" | head -1)
      sw=$(echo "$out" | grep -oE "nncg: [a-z -]+ after [0-9]+ sweeps, error [0-9.e+-]+" | head -1 | sed 's/nncg: //')
      line="$line | order $o: $sw ${nc:+($nc)}"
    done
    echo "$line"
  done
done
