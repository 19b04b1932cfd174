#!/bin/sh
# tune.sh DIR "STEPS" SET...: nncg from each step's .sol warm guess to 1e-4
# within 5000 sweeps; one line per setting: step:sweeps error/CPU-seconds
# (sweeps empty when not converged), then the sums.
dir=$1; steps=$2; shift 2
F=${FRICON:-build/fricon}
for set in "$@"; do
  line="$set:"; tot=0; un=0; cpu=0
  for s in $steps; do
    f=$dir/pile-0000$s.hdf5
    out=$( { /usr/bin/time -f 'CPU %U' $F solve $f --solver nncg --tol 1e-4 --max-iter 5000 --json $set; } 2>&1 )
    it=$(echo "$out" | sed -n 's/.*"iterations": \([0-9]*\).*/\1/p')
    res=$(echo "$out" | sed -n 's/.*"residual": \([0-9.e+-]*\).*/\1/p')
    st=$(echo "$out" | sed -n 's/.*"status": "\([a-z_]*\)".*/\1/p')
    c=$(echo "$out" | sed -n 's/^CPU //p')
    tot=$((tot + it)); cpu=$(echo "$cpu + $c" | bc)
    if [ "$st" = converged ]; then line="$line $s:$it $res/$c"; else un=$((un+1)); line="$line $s:/$res/$c"; fi
  done
  echo "$line  | sweeps $tot, unconverged $un, CPU $cpu, load $(cut -d' ' -f1 /proc/loadavg)"
done
