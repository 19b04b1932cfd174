#!/bin/sh
# usage: focus.sh OUT "seeds" "focus values": nncg from the simulator's guess on steps 30, 35, 40, sweeps to 1e-4 (cap 4000)
out=$1; seeds=$2; vals=$3
for s in $seeds; do for k in 30 35 40; do for fo in $vals; do
  f=$(printf '/tmp/np/seed%d/pile-%06d.hdf5' $s $k)
  res=$( { /usr/bin/time -f 'cpu %U' nice -n 10 /tmp/p8/fricon-focus2 solve $f --solver nncg --tol 1e-4 --max-iter 4000 --time-limit 300 --set nncg.focus=$fo --json --verbose; } 2>&1 | grep -E 'focus passes|"status"|^cpu' | sed 's/"problem[^,]*,//; s/"kind[^,]*,//; s/"solver[^,]*,//' | tr '\n' ' ')
  echo "seed $s step $k focus $fo load $(cut -d' ' -f1 /proc/loadavg) $res" >> $out
done; done; done
