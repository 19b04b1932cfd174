#!/bin/bash
# Contact detection per step of `fricon simulate pile --count N` (issue
# 28: 10^4 spheres, threads 2 against threads 1), two builds A and B
# alternated: each round runs A and B with --threads 1 and 2 in a rotated
# order (S steps, default 10, NSGS with 1 sweep in the file order, as
# bench/parallel.sh; the wait between OpenMP regions is fricon's own
# rule, app/main.c).  Prints each run (round, build, threads, detection
# ms per step, load average), then per build the medians, minima and
# maxima of the 1- and 2-thread times, the per-round ratios 1 thread / 2
# threads (median, quartiles, min, max), B's 1-thread time over A's
# (median of the per-round ratios), and whether each build gave the same
# contacts with 1 and 2 threads.
# usage: bench/detect_ab.sh [--a FRICON] [--b FRICON] [--rounds K]
#                           [--count N] [--steps S]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
A=/work/main/build-lead/fricon B=$HERE/../build/fricon K=10 COUNT=10000 STEPS=10
while [ $# -gt 0 ]; do
  case "$1" in
    --a) A=$2; shift 2 ;;
    --b) B=$2; shift 2 ;;
    --rounds) K=$2; shift 2 ;;
    --count) COUNT=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    *) echo "usage: bench/detect_ab.sh [--a FRICON] [--b FRICON] [--rounds K] [--count N] [--steps S]" >&2; exit 2 ;;
  esac
done
echo "# bench/detect_ab.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# A $A"
echo "# B $B"
tmp=$(mktemp)
runs=("A 1" "A 2" "B 1" "B 2")
for k in $(seq 1 "$K"); do
  for q in 0 1 2 3; do
    set -- ${runs[$(((q + k) % 4))]}
    bin=$A; [ "$1" = B ] && bin=$B
    out=$("$bin" simulate pile --count "$COUNT" --steps "$STEPS" --solver nsgs --max-iter 1 \
          --set nsgs.order=1 --threads "$2" --quiet 2>/dev/null)
    det=$(echo "$out" | sed -n 's/^detection: *\([0-9.e+-]*\) s per step.*/\1/p')
    con=$(echo "$out" | grep '^contacts:' | tr ' ' '_')
    echo "run $k $1 $2 $(awk -v d="$det" 'BEGIN { printf "%.3f", 1000 * d }') $(cut -d' ' -f1 /proc/loadavg) $con" | tee -a "$tmp"
  done
done
awk '
function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
function q(a, n, f,   x) { x = 1 + f * (n - 1); return a[int(x)] + (x - int(x)) * (a[int(x) + 1] - a[int(x)]) }
{ t[$3, $4, $2] = $5; if (con[$3, $4] == "") con[$3, $4] = $7; else if (con[$3, $4] != $7) con[$3, $4] = "DIFFER"; if ($2 > K) K = $2 }
END {
  for (b = 0; b < 2; b++) {
    B = b ? "B" : "A"
    for (th = 1; th <= 2; th++) { n = 0; for (k = 1; k <= K; k++) v[++n] = t[B, th, k]; sort(v, n)
      printf "%s threads %d: detection ms per step median %.3f min %.3f max %.3f\n", B, th, q(v, n, .5), v[1], v[n] }
    n = 0; for (k = 1; k <= K; k++) r[++n] = t[B, 1, k] / t[B, 2, k]; sort(r, n)
    printf "%s ratio 1/2 threads per round: median %.2f quartiles %.2f-%.2f min %.2f max %.2f; contacts %s\n", B, q(r, n, .5), q(r, n, .25), q(r, n, .75), r[1], r[n], con[B, 1] == con[B, 2] ? "identical" : "DIFFER"
  }
  n = 0; for (k = 1; k <= K; k++) r[++n] = t["B", 1, k] / t["A", 1, k]; sort(r, n)
  printf "B / A, 1 thread, per round: median %.3f min %.3f max %.3f\n", q(r, n, .5), r[1], r[n]
  n = 0; for (k = 1; k <= K; k++) r[++n] = t["B", 2, k] / t["A", 2, k]; sort(r, n)
  printf "B / A, 2 threads, per round: median %.3f min %.3f max %.3f\n", q(r, n, .5), r[1], r[n]
}' "$tmp"
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$tmp"
