#!/bin/bash
# nsgs.cut 1 against 2 at 2 threads (level_min 0 and 16), alternated, ms a plain
# sweep as bench/threads.sh measures it (K + 10 minus 10 cold sweeps, wall), medians;
# and the file order on 1 thread.  usage: ab-cut.sh FRICON REPS K FILE...
F=$1 REPS=$2 K=$3; shift 3
solve_s() { "$F" solve "$1" --solver nsgs --cold --tol 1e-300 --max-iter "$2" --threads "$3" --set nsgs.anderson=0 \
  --set nsgs.level_min="$4" --set nsgs.cut="$5" --set nsgs.error_every="$2" --json 2>/dev/null |
  sed -n 's/.*"seconds": *\([0-9.e+-]*\).*/\1/p'; }
sweep_ms() { a=$(solve_s "$1" 10 "$2" "$3" "$4"); b=$(solve_s "$1" $((K + 10)) "$2" "$3" "$4"); awk -v a="$a" -v b="$b" -v k="$K" 'BEGIN { printf "%.4f\n", 1000 * (b - a) / k }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for f in "$@"; do
  echo "# $(date -u +%H:%M) load $(cut -d' ' -f1-3 /proc/loadavg) $f"
  t=$(mktemp -d)
  for ((i = 0; i < REPS; i++)); do
    sweep_ms "$f" 1 0 1 >> $t/file1
    sweep_ms "$f" 2 0 1 >> $t/c1l0; sweep_ms "$f" 2 0 2 >> $t/c2l0
    sweep_ms "$f" 2 16 1 >> $t/c1l16; sweep_ms "$f" 2 16 2 >> $t/c2l16
  done
  for v in file1 c1l0 c2l0 c1l16 c2l16; do echo "$v: median $(median < $t/$v) ms; runs $(tr '\n' ' ' < $t/$v)"; done
  echo "# end load $(cut -d' ' -f1-3 /proc/loadavg)"
  rm -rf $t
done
