#!/bin/sh
# vsn (velocity-space semismooth Newton in a proximal point) against nncg,
# cold, tol 1e-4; CPU seconds by /usr/bin/time.  Run from the worktree root,
# built at commit 00365a3 of branch piles (vsn is not in the tree after it).
out=bench/results/2026-11-27-piles
for f in examples/pile300-step30.hdf5 examples/pile-step24.hdf5 /tmp/pile7/pile-000060.hdf5; do
  b=$(basename $f .hdf5)
  for rho in 10 30 100 300; do
    echo "== $f vsn rho $rho ($(uptime))"
    /usr/bin/time -f "cpu %U wall %e" build/fricon solve $f --solver vsn --tol 1e-4 --time-limit 20 --set vsn.rho=$rho --verbose --verbose 2>&1 | grep -v "newton"
  done
  echo "== $f nncg ($(uptime))"
  /usr/bin/time -f "cpu %U wall %e" build/fricon solve $f --solver nncg --tol 1e-4 --time-limit 20 2>&1
done
