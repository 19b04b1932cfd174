#!/bin/sh
# How far GMRES gets on the Newton systems: examples/pile-step24.hdf5 cold,
# Newton-Krylov steps (newton 20, gap 20) with up to 200 GMRES iterations,
# block-diagonal or body-block preconditioner, J or J + 0.1 I; every step's
# log line ("reached": GMRES's final ||J x + F|| / ||F||).
# usage: sh run-gmres.sh OUT   (FRICON: the binary)
bin=${FRICON:-build/fricon}
for reg in 0 0.1; do for body in 0 1; do
  echo "== reg $reg body $body" >> "$1"
  /usr/bin/time -f "cpu %U s" nice -n 10 "$bin" solve examples/pile-step24.hdf5 --solver nncg --tol 1e-4 --cold \
      --verbose --verbose --set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=200 \
      --set nncg.newton_body=$body --set nncg.newton_reg=$reg 2>&1 | grep -E "Newton|^nncg|^cpu" >> "$1"
done; done
