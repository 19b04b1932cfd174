#!/bin/sh
# usage: handoff.sh OUT "seeds": nncg with the Newton-Krylov steps (newton 20, gap 20, krylov 10), without and with focus 4
out=$1; seeds=$2
for s in $seeds; do for k in 30 35 40; do for fo in 0 4; do
  f=$(printf '/tmp/np/seed%d/pile-%06d.hdf5' $s $k)
  res=$( { /usr/bin/time -f 'cpu %U' nice -n 10 /tmp/p8/fricon-focus2 solve $f --solver nncg --tol 1e-4 --max-iter 4000 --time-limit 300 --set nncg.focus=$fo --set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=10 --json --verbose; } 2>&1 | grep -E 'focus passes|Newton-Krylov steps \(|"status"|^cpu' | sed 's/"problem[^,]*,//; s/"kind[^,]*,//; s/"solver[^,]*,//' | tr '\n' ' ')
  echo "seed $s step $k newton 20/20/10 focus $fo load $(cut -d' ' -f1 /proc/loadavg) $res" >> $out
done; done; done
