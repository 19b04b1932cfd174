#!/bin/bash
# A/B nsgs.phases 1 vs 2 per-sweep ms at 2 threads, and 1 thread file order; alternated
F=$1; K=${2:-100}; R=${3:-5}; FR=${FR:-/work/main/build-lead/fricon}
solve_s() { "$FR" solve "$F" --solver nsgs --cold --tol 1e-300 --max-iter "$1" --threads "$2" --set nsgs.anderson=0 --set nsgs.level_min=0 --set nsgs.error_every="$1" --set nsgs.phases="$3" --json 2>/dev/null | sed -n 's/.*"seconds": *\([0-9.e+-]*\).*/\1/p'; }
ms() { a=$(solve_s 10 $1 $2); b=$(solve_s $((K+10)) $1 $2); awk -v a=$a -v b=$b -v k=$K 'BEGIN{printf "%.4f", 1000*(b-a)/k}'; }
for ((i=0;i<R;i++)); do echo "t1 $(ms 1 1) ph1 $(ms 2 1) ph2 $(ms 2 2)"; done
