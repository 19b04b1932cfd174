#!/bin/sh
# wait for the seed-1 pair, then seeds 3 (tuning), 2 and 4 (validation), modes 0 and 2 at once
while pgrep -f 'fricon-exp simulate pile --count 2000 --seed 1 ' >/dev/null; do sleep 5; done
for seed in 3 2 4; do
  out=tune.txt; [ $seed = 2 -o $seed = 4 ] && out=valid.txt
  ./sim.sh 0 $seed nncg $out --time-limit 0 --max-iter 1500 &
  ./sim.sh 2 $seed nncg $out --time-limit 0 --max-iter 1500 &
  wait
done
