#!/bin/bash
# Threads 2 against threads 1 in one run (issue 28): the threaded kernels
# and the simulator's contact detection, alternating the two counts with
# repeats, medians and their ratio (threads 1 time / threads 2 time).
#
# usage: bench/parallel.sh [--build DIR] [--out DIR] [--reps K] [--iters N]
#                          [--count N] [--spheres N] [--steps S] [--reuse]
#
# 1. A problem of 10^4+ contacts: `fricon simulate column --count N`
#    (default 3000 spheres: about 10400 contacts) runs 2 steps (NSGS, at
#    most 50 sweeps: generation only) and exports step 2 in local and
#    global form to DIR/column-N-local.hdf5 and DIR/column-N.hdf5
#    (--reuse: kept when there).
# 2. build/bench_kernels on it: the SPEC measure, W x, and one iteration
#    of admm (constant rho, no probe), apgd-ccp and fpp (iteration time =
#    (t(10 + N) - t(10)) / N, default N 100), threads 1 and 2 alternated
#    K times (default 7); the column "results" says whether threads 1 and
#    2 (and the repeats) returned the same bits; then one iteration of
#    gadmm (constant rho) on the global form, the same way.
# 3. The simulator: `fricon simulate pile --count M` (default 10^4
#    spheres, 3 S steps, S default 5, NSGS with 1 sweep: the solve is not what
#    is timed) with --threads 1 and 2 alternated K times: the detection
#    seconds per step (broad and narrow phase) and the assembly's, from
#    the summary; the contacts must be the same for both counts.  Each
#    repeat runs 3 S steps: the detection of steps 1 .. S (their mean, the
#    first step's allocations in it) and of steps S + 1 .. 3 S (their
#    median), from each step's progress line.
# BLAS runs on one thread (OPENBLAS_NUM_THREADS=1 unless set), as fricon
# sets it for every command (app/fricon.c); before 2026-11-27 07:30 UTC
# bench_kernels ran with OpenBLAS' default pool of every core, so that its
# admm and gadmm rows measured CHOLMOD's solves on 2 BLAS threads plus
# fricon's.  The wait between OpenMP regions is fricon's rule (app/main.c)
# unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set: GOMP_SPINCOUNT=3000 when
# the load average is below the cores, else OMP_WAIT_POLICY=passive, taken
# once at the start for bench_kernels (the simulator's runs take it from
# fricon itself).  Before 2026-11-27 11:00 UTC it was always passive.  Run it on an
# idle machine: a wall-clock ratio is meaningless when other jobs hold the
# cores (the load average is printed first).  Writes DIR/parallel.txt.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$HERE/../build
OUT=bench-parallel
REPS=7
ITERS=100
COUNT=3000
SPHERES=10000
STEPS=5
REUSE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build|--out|--reps|--iters|--count|--spheres|--steps)
      [ $# -ge 2 ] || { echo "parallel: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --count) COUNT=$2; shift 2 ;;
    --spheres) SPHERES=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --reuse) REUSE=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "parallel: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
FRICON=$BUILD/fricon
KERNELS=$BUILD/bench_kernels
for exe in "$FRICON" "$KERNELS"; do
  [ -x "$exe" ] || { echo "parallel: no $exe (build first: cmake --build $BUILD)" >&2; exit 2; }
done
. "$HERE/wait_rule.sh"
fricon_wait_rule
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
mkdir -p "$OUT"
REPORT=$OUT/parallel.txt
: > "$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }

say "# bench/parallel.sh $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-(unset)}, OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS"
say "# fricon $(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null || echo '?')"

# ---- 1. the problem
PROB=$OUT/column-$COUNT-local.hdf5
GPROB=$OUT/column-$COUNT.hdf5
if [ $REUSE = 0 ] || [ ! -f "$PROB" ] || [ ! -f "$GPROB" ]; then
  tmp=$OUT/gen
  rm -rf "$tmp"
  "$FRICON" simulate column --count "$COUNT" --steps 2 --every 2 --export "$tmp" --both \
      --solver nsgs --max-iter 50 --quiet > /dev/null 2>&1
  f=$(ls "$tmp"/column-*-local.hdf5 2>/dev/null | head -1)
  g=${f%-local.hdf5}.hdf5
  [ -n "$f" ] && [ -f "$g" ] || { echo "parallel: the column of $COUNT spheres exported no problem" >&2; exit 1; }
  mv "$f" "$PROB"
  mv "$g" "$GPROB"
  rm -rf "$tmp"
fi

# ---- 2. the kernels and the first-order solvers
say ""
"$KERNELS" "$PROB" --reps "$REPS" --iters "$ITERS" | tee -a "$REPORT"
"$KERNELS" "$GPROB" --reps "$REPS" --iters "$ITERS" --solvers gadmm | tee -a "$REPORT"

# ---- 3. the simulator's contact detection
# Each repeat runs 3 S steps and reads every step's detection from its
# progress line: the mean of steps 1 .. S (the first detection allocates
# the lists and faults their pages in) and the median of the later ones,
# a running simulation's.
LONG=$((3 * STEPS))
say ""
say "simulate pile --count $SPHERES, $LONG steps, $REPS repeats alternating threads 1 and 2"
det1=() det2=() late1=() late2=() asm1=() asm2=() c1="" c2=""
for k in $(seq 1 "$REPS"); do
  order="1 2"; [ $((k % 2)) = 0 ] && order="2 1"
  for t in $order; do
    # nsgs.order=1: the file order at any count (from 2 threads nsgs would
    # colour a step of 10^4 contacts: another trajectory, other contacts)
    out=$("$FRICON" simulate pile --count "$SPHERES" --steps "$LONG" --solver nsgs --max-iter 1 \
          --set nsgs.order=1 --threads "$t" 2>&1)
    steps=$(echo "$out" | sed -n 's/^step \([0-9]*\)\/.* detect \([0-9.e+-]*\)s$/\1 \2/p')
    [ "$(echo "$steps" | wc -l)" = "$LONG" ] || { echo "parallel: no detection times from fricon simulate" >&2; exit 1; }
    det=$(echo "$steps" | awk -v s="$STEPS" '$1 <= s { t += $2 } END { print t / s }')
    late=$(echo "$steps" | awk -v s="$STEPS" '$1 > s { print $2 }' | sort -g |
           awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
    asm=$(echo "$out" | sed -n 's/.*assembly \([0-9.e+-]*\) s$/\1/p')
    con=$(echo "$out" | grep '^contacts:')
    if [ "$t" = 1 ]; then det1+=("$det"); late1+=("$late"); asm1+=("$asm"); c1=$con
    else det2+=("$det"); late2+=("$late"); asm2+=("$asm"); c2=$con; fi
  done
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
d1=$(median "${det1[@]}"); d2=$(median "${det2[@]}")
l1=$(median "${late1[@]}"); l2=$(median "${late2[@]}")
a1=$(median "${asm1[@]}"); a2=$(median "${asm2[@]}")
same=identical; [ "$c1" = "$c2" ] || same="DIFFER ($c1 / $c2)"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > 0 ? a / b : 0) }'; }
printf '%-22s %14s %14s %8s %s\n' kernel "threads 1 (s)" "threads 2 (s)" ratio contacts | tee -a "$REPORT"
printf '%-22s %14.6g %14.6g %8.2f %s\n' "detection (per step)" "$d1" "$d2" "$(ratio "$d1" "$d2")" "$same" | tee -a "$REPORT"
printf '%-22s %14.6g %14.6g %8.2f\n' "detection, later steps" "$l1" "$l2" "$(ratio "$l1" "$l2")" | tee -a "$REPORT"
printf '%-22s %14.6g %14.6g %8.2f\n' "assembly (per step)" "$a1" "$a2" "$(ratio "$a1" "$a2")" | tee -a "$REPORT"
say "detection (per step): the mean of steps 1-$STEPS; later steps: the median of steps $((STEPS + 1))-$LONG; assembly: the mean of all"
say "$c1"
say "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
