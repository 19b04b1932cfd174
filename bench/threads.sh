#!/bin/bash
# Per-sweep time of nsgs with 1 and 2 threads, against the machine's
# bandwidth bound (issue 28's "done when": a sweep at least 1.7x faster
# with 2 threads, at most 1.5x the bound).  Run it on an idle machine:
# on a loaded one a parallel region waits for whichever thread the
# scheduler has given to another job (docs/measurements.md#threads).
#
# usage: bench/threads.sh [--fricon PATH] [--reps N] [--sweeps K] [FILE...]
#        bench/threads.sh --detect [--fricon PATH] [--count N] [--reps N]
#        (first form also [--level-min L])
#
# --detect: the simulator's contact detection instead (issue 28's "steps
# of 10^4 spheres detect contacts at least 1.7x faster with 2 threads"):
# build/bench_detect on a pile of N spheres (default 10^4) after 5 steps,
# 1 and 2 threads alternated: the detection of one configuration repeated
# (default 21 times: wall and process CPU medians), then 20 steps of two
# copies of the world side by side (the seconds `fricon simulate`
# reports).  The wait between OpenMP regions as the CLI sets it
# (app/main.c: GOMP_SPINCOUNT=3000 below a load average of the cores,
# else passive) unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set; the load
# average is printed before and after.
#
# FILE: local problems (FClib HDF5 or .dat); none: a step of the
# collapsing column of 3000 spheres (10397 contacts, local form) is
# generated into bench-threads/ (`fricon simulate column`, as
# bench/mbd_scale.sh does).
# For each file:
# 1. per-sweep time, nsgs without Anderson (plain sweeps), in five
#    settings: file order with 1 thread, coloured order (nsgs.order=2)
#    with 1 thread and with 2, the stretches (nsgs.order=3, auto's
#    choice from 2 threads, in two phases; with 1 thread it is the file
#    order) with 2, and the stretches in one phase (nsgs.phases=1, before
#    the twenty-ninth session) with their interface's levels on the
#    threads (nsgs.level_min=L, --level-min L, default 16; the same sweeps
#    and bits as in order: docs/measurements.md, twenty-first session).  A time is the difference of two solves,
#    K + 10 and 10 sweeps (the error measured only at the last one), over K:
#    the set-up (conversions, colouring) cancels.  The settings are run in
#    turn, N times (default 5), and the median is kept.
# 2. build/bench_bandwidth FILE --threads 2: the bound of one product
#    with W at the triad's bandwidth (what one sweep must read at least).
# 3. ratios: coloured 1 thread / 2 threads and file order 1 thread /
#    stretches 2 threads (target >= 1.7), coloured 1 thread / file order
#    (the colouring's own cost), and each sweep time over the bound of its
#    thread count (target <= 1.5).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FRICON=$HERE/../build/fricon
PROBE=$HERE/../build/bench_bandwidth
REPS=5
K=100
FILES=()
DETECT=0
COUNT=10000
LEVELMIN=16
while [ $# -gt 0 ]; do
  case "$1" in
    --fricon) FRICON=$2; PROBE=$(dirname "$2")/bench_bandwidth; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --sweeps) K=$2; shift 2 ;;
    --detect) DETECT=1; shift ;;
    --count) COUNT=$2; shift 2 ;;
    --level-min) LEVELMIN=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) FILES+=("$1"); shift ;;
  esac
done
if [ $DETECT = 1 ]; then
  DET=$(dirname "$FRICON")/bench_detect
  [ -x "$DET" ] || { echo "threads.sh: build first ($DET)" >&2; exit 2; }
  [ "$REPS" = 5 ] && REPS=21
  . "$HERE/wait_rule.sh"
  fricon_wait_rule
  echo "# bench/threads.sh --detect $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-(unset)}"
  "$DET" --count "$COUNT" --reps "$REPS" --lockstep 20
  rc=$?
  echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit $rc
fi
[ -x "$FRICON" ] && [ -x "$PROBE" ] || { echo "threads.sh: build first ($FRICON, $PROBE)" >&2; exit 2; }
if [ ${#FILES[@]} -eq 0 ]; then
  mkdir -p bench-threads
  f=bench-threads/column-000002-local.hdf5
  if [ ! -f "$f" ]; then
    "$FRICON" simulate column --count 3000 --steps 2 --every 2 --solver nsgs --max-iter 50 \
      --quiet --local --export bench-threads >/dev/null 2>&1
  fi
  [ -f "$f" ] || { echo "threads.sh: could not generate $f" >&2; exit 1; }
  FILES=("$f")
fi

# seconds of one solve: file, sweeps, threads, order, nsgs.level_min, nsgs.phases
# (the wait between OpenMP regions: fricon's own choice, app/main.c, unless set here)
solve_s() {
  "$FRICON" solve "$1" --solver nsgs --cold \
    --tol 1e-300 --max-iter "$2" --threads "$3" --set nsgs.order="$4" --set nsgs.anderson=0 \
    --set nsgs.level_min="${5:-0}" --set nsgs.phases="${6:-0}" --set nsgs.error_every="$2" --json 2>/dev/null |
    sed -n 's/.*"seconds": *\([0-9.e+-]*\).*/\1/p'
}
# milliseconds per sweep: file, threads, order, nsgs.level_min, nsgs.phases
sweep_ms() {
  local a b
  a=$(solve_s "$1" 10 "$2" "$3" "${4:-0}" "${5:-0}")
  b=$(solve_s "$1" $((K + 10)) "$2" "$3" "${4:-0}" "${5:-0}")
  awk -v a="$a" -v b="$b" -v k="$K" 'BEGIN { printf "%.4f\n", 1000 * (b - a) / k }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# bench/threads.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in "${FILES[@]}"; do
  tmp=$(mktemp -d)
  for ((i = 0; i < REPS; i++)); do
    sweep_ms "$f" 1 1 >>"$tmp/file1"
    sweep_ms "$f" 1 2 >>"$tmp/col1"
    sweep_ms "$f" 2 2 >>"$tmp/col2"
    sweep_ms "$f" 2 3 >>"$tmp/str2"
    sweep_ms "$f" 2 3 "$LEVELMIN" 1 >>"$tmp/lev2"
  done
  file1=$(median <"$tmp/file1"); col1=$(median <"$tmp/col1"); col2=$(median <"$tmp/col2")
  str2=$(median <"$tmp/str2"); lev2=$(median <"$tmp/lev2")
  probe=$("$PROBE" "$f" --threads 2 --reps 5 2>&1)
  bound1=$(echo "$probe" | sed -n 's/.*(bound \([0-9.]*\) ms.* with 2 .*/\1/p')
  bound2=$(echo "$probe" | sed -n 's/.*with 2 (bound \([0-9.]*\) ms.*/\1/p')
  echo "$f"
  echo "$probe" | sed 's/^/  probe: /'
  echo "  ms per sweep (median of $REPS, $K sweeps): file order 1 thread $file1, coloured 1 thread $col1, coloured 2 threads $col2, stretches 2 threads $str2, stretches in one phase with levels (level_min $LEVELMIN) 2 threads $lev2"
  awk -v f1="$file1" -v c1="$col1" -v c2="$col2" -v s2="$str2" -v l2="$lev2" -v b1="${bound1:-0}" -v b2="${bound2:-0}" 'BEGIN {
    printf "  speed-up coloured 1 -> 2 threads: %.2fx (target >= 1.7)\n", c1 / c2
    printf "  speed-up file order 1 thread -> stretches 2 threads: %.2fx (target >= 1.7)\n", f1 / s2
    printf "  speed-up file order 1 thread -> one phase with levels 2 threads: %.2fx (target >= 1.7)\n", f1 / l2
    printf "  coloured / file order, 1 thread: %.2fx\n", c1 / f1
    if (b1 > 0 && b2 > 0)
      printf "  sweep / bound: file order 1 thread %.2fx, coloured 1 thread %.2fx, coloured 2 threads %.2fx, stretches 2 threads %.2fx, one phase with levels %.2fx (target <= 1.5)\n",
             f1 / b1, c1 / b1, c2 / b2, s2 / b2, l2 / b2
  }'
  rm -rf "$tmp"
done
