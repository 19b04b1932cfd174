#!/bin/sh
# gipm and nsn-hybrid on the bundled pile step, cold, tol 1e-4, 20 s: where
# their time goes (gipm: outer fixed point on the De Saxce shift; nsn: the
# contact-space factorisations).  Run from the worktree root.
f=examples/pile-step24.hdf5
echo "== gipm ($(uptime))"
/usr/bin/time -f "cpu %U wall %e" build/fricon solve $f --solver gipm --tol 1e-4 --time-limit 20 --verbose --verbose 2>&1 | grep -v "^  *ipm [0-9]"
echo "== nsn-hybrid ($(uptime))"
/usr/bin/time -f "cpu %U wall %e" build/fricon solve $f --solver nsn-hybrid --tol 1e-4 --time-limit 20 --verbose --verbose 2>&1 | tail -30
