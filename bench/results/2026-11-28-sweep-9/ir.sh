#!/bin/bash
# usage: ir.sh FILE K ORDER BIN... : instructions per sweep (callgrind Ir, (K+10) - 10 sweeps, 1 thread)
f=$1; K=$2; O=$3; shift 3
s() { OMP_THREAD_LIMIT=1 valgrind --tool=callgrind --callgrind-out-file=${TMPDIR:-/tmp}/cg.$$.$2 "$1" solve "$f" --solver nsgs --cold --tol 1e-300 --max-iter "$2" --threads 1 --set nsgs.order="$O" --set nsgs.anderson=0 --set nsgs.error_every="$2" --json 2>&1 | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'; }
for b in "$@"; do
  i1=$(s $b 10); i2=$(s $b $((K+10)))
  awk -v i1=$i1 -v i2=$i2 -v k=$K -v b=$b 'BEGIN{printf "%s: %.3f M instructions per sweep\n", b, (i2-i1)/k/1e6}'
done
