#!/bin/bash
# usage: ab.sh FILE K REPS THREADS ORDER BIN_A BIN_B ... : CPU ms per sweep (K+10 minus 10 sweeps, cpu_clock=1), binaries alternated
f=$1; K=$2; R=$3; T=$4; O=$5; shift 5
s() { "$1" solve "$f" --solver nsgs --cold --tol 1e-300 --max-iter "$2" --threads "$T" --set nsgs.order="$O" --set nsgs.anderson=0 --set nsgs.error_every="$2" ${CPU:+--set cpu_clock=1} --json 2>/dev/null | sed -n 's/.*"seconds": *\([0-9.e+-]*\).*/\1/p'; }
echo "# $(date -u +%H:%M) load $(cut -d' ' -f1-3 /proc/loadavg) file $f K $K threads $T order $O cpu_clock=${CPU:-0} binaries $*"
for ((i=0;i<R;i++)); do
  line=""
  for b in "$@"; do a=$(s $b 10); c=$(s $b $((K+10))); line="$line $(awk -v a=$a -v c=$c -v k=$K 'BEGIN{printf "%.3f", 1000*(c-a)/k}')"; done
  echo "$line"
done
echo "# end load $(cut -d' ' -f1-3 /proc/loadavg)"
