#!/bin/sh
# ab.sh ROUNDS A B : median detection wall (us) of steps 3-12 per build and thread count
R=$1; A=$2; B=$3
for r in $(seq 1 $R); do
  for b in A B; do eval F=\$$b
    for t in 1 2; do
      m=$($F simulate pile --count 10000 --steps 12 --solver nsgs --max-iter 1 --threads $t --quiet 2>&1 >/dev/null |
        awk '/ t0 /{ if ($3>=3) print $7 }' | sort -n | sed -n 5p)
      echo "$b $t $r $m"
    done
  done
done
