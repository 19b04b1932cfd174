#!/bin/sh
# Over-relaxation on a pile step (the second half of lead 1 in its simplest
# form): nsgs without Anderson at several omega, nncg, from the file's guess,
# a fixed number of sweeps; CPU seconds of each process.
F=${1:-/tmp/s18/p1/pile-000044.hdf5}; N=${2:-1500}
B=/work/wt-piles4/build/fricon
for w in 1 1.3 1.6 1.8; do
  printf 'nsgs omega %s anderson 0: ' $w
  /usr/bin/time -f 'cpu %U' $B solve $F --solver nsgs --set nsgs.anderson=0 --set nsgs.omega=$w --tol 1e-4 --max-iter $N --json 2>&1 | tr '\n' ' '; echo
done
printf 'nncg: '; /usr/bin/time -f 'cpu %U' $B solve $F --solver nncg --tol 1e-4 --max-iter $N --json 2>&1 | tr '\n' ' '; echo
