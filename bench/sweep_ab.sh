#!/bin/bash
# Two fricon binaries A and B alternated on the NSGS sweep of local
# problems (issue 28): per run the milliseconds of one plain sweep (as
# bench/threads.sh: K + 10 minus 10 sweeps, cold, error measured at the
# last) with 1 thread in file order (wall and the process's CPU) and with
# 2 threads in the stretches with their levels (wall); A, B, A, B, ...
# N times (default 5), then the medians, B's ratios to A and to the
# probe's bounds (bench_bandwidth next to B, run before and after), and
# with --tol T each binary's sweeps to T (nsgs's defaults, warm from the
# file's .sol when there is one, at most --max-sweeps, default 3000) with
# 1 and 2 threads.
# usage: bench/sweep_ab.sh A B [--reps N] [--sweeps K] [--tol T] [--max-sweeps M] FILE...
set -u
REPS=5 K=100 TOL= MAXS=3000 FILES=() BINS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --sweeps) K=$2; shift 2 ;;
    --tol) TOL=$2; shift 2 ;;
    --max-sweeps) MAXS=$2; shift 2 ;;
    *) if [ ${#BINS[@]} -lt 2 ]; then BINS+=("$1"); else FILES+=("$1"); fi; shift ;;
  esac
done
[ ${#BINS[@]} = 2 ] && [ ${#FILES[@]} -gt 0 ] || { sed -n 2,11p "$0"; exit 2; }
PROBE=$(dirname "${BINS[1]}")/bench_bandwidth
# "wall cpu" seconds of one solve: binary, file, sweeps, threads, order, level_min
solve_s() {
  local out
  out=$( { /usr/bin/time -f "TIME %U %S" "$1" solve "$2" --solver nsgs --cold --tol 1e-300 \
      --max-iter "$3" --threads "$4" --set nsgs.order="$5" --set nsgs.anderson=0 \
      --set nsgs.level_min="$6" --set nsgs.error_every="$3" --json; } 2>&1)
  echo "$(echo "$out" | sed -n 's/.*"seconds": *\([0-9.e+-]*\).*/\1/p') $(echo "$out" | awk '/^TIME/ { print $2 + $3 }')"
}
# "wall_ms cpu_ms" a sweep: binary, file, threads, order, level_min
sweep_ms() {
  local a b
  a=$(solve_s "$1" "$2" 10 "$3" "$4" "$5")
  b=$(solve_s "$1" "$2" $((K + 10)) "$3" "$4" "$5")
  echo "$a $b" | awk -v k="$K" '{ printf "%.4f %.4f\n", 1000 * ($3 - $1) / k, 1000 * ($4 - $2) / k }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# bench/sweep_ab.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# A ${BINS[0]}"
echo "# B ${BINS[1]}"
for f in "${FILES[@]}"; do
  echo "$f"
  "$PROBE" "$f" --threads 2 --reps 5 2>&1 | sed 's/^/  probe before: /'
  tmp=$(mktemp -d)
  for ((i = 0; i < REPS; i++)); do
    for ab in 0 1; do
      bin=${BINS[$ab]}
      s1=$(sweep_ms "$bin" "$f" 1 1 0)
      s2=$(sweep_ms "$bin" "$f" 2 3 16)
      echo "$s1" | awk '{ print $1 }' >>"$tmp/w1.$ab"
      echo "$s1" | awk '{ print $2 }' >>"$tmp/c1.$ab"
      echo "$s2" | awk '{ print $1 }' >>"$tmp/w2.$ab"
      echo "  run $i $([ $ab = 0 ] && echo A || echo B): 1 thread wall $(echo "$s1" | cut -d' ' -f1) ms, CPU $(echo "$s1" | cut -d' ' -f2) ms; 2 threads wall $(echo "$s2" | cut -d' ' -f1) ms; load $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
  probe=$("$PROBE" "$f" --threads 2 --reps 5 2>&1)
  echo "$probe" | sed 's/^/  probe after: /'
  b1=$(echo "$probe" | sed -n 's/.*(bound \([0-9.]*\) ms.* with 2 .*/\1/p')
  b2=$(echo "$probe" | sed -n 's/.*with 2 (bound \([0-9.]*\) ms.*/\1/p')
  for ab in 0 1; do
    eval "w1_$ab=$(median <"$tmp/w1.$ab") c1_$ab=$(median <"$tmp/c1.$ab") w2_$ab=$(median <"$tmp/w2.$ab")"
  done
  awk -v a1="$w1_0" -v ac="$c1_0" -v a2="$w2_0" -v b1="$w1_1" -v bc="$c1_1" -v b2="$w2_1" \
      -v p1="${b1:-0}" -v p2="${b2:-0}" -v n="$REPS" 'BEGIN {
    printf "  medians of %d (ms a sweep): A 1 thread wall %.3f CPU %.3f, 2 threads %.3f; B 1 thread wall %.3f CPU %.3f, 2 threads %.3f\n", n, a1, ac, a2, b1, bc, b2
    printf "  A / B: 1 thread wall %.2fx, CPU %.2fx; 2 threads %.2fx\n", a1 / b1, ac / bc, a2 / b2
    printf "  1 thread / 2 threads: A %.2fx, B %.2fx (target >= 1.7)\n", a1 / a2, b1 / b2
    if (p1 > 0 && p2 > 0)
      printf "  sweep / bound (probe after): A %.2fx and %.2fx, B %.2fx and %.2fx with 1 and 2 threads (target <= 1.5)\n", a1 / p1, a2 / p2, b1 / p1, b2 / p2
  }'
  for ab in 0 1; do
    [ -n "$TOL" ] || break
    for nt in 1 2; do
      "${BINS[$ab]}" solve "$f" --solver nsgs --tol "$TOL" --max-iter "$MAXS" --threads $nt --json 2>/dev/null |
        sed -n "s/.*\"status\": *\"\([a-z-]*\)\", \"iterations\": *\([0-9]*\), \"residual\": *\([0-9.e+-]*\).*/  $([ $ab = 0 ] && echo A || echo B) $nt thread(s) to $TOL: \1 after \2 sweeps, error \3/p"
    done
  done
  rm -rf "$tmp"
done
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
