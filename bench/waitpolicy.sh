#!/bin/bash
# OpenMP's wait between parallel regions (issue 28): the threaded kernels
# and whole solves that mix them with sequential CHOLMOD / UMFPACK work,
# with 2 threads against 1, under each wait setting of libgomp:
#   passive       OMP_WAIT_POLICY=passive (no spin: futex wait at once)
#   spin=N        GOMP_SPINCOUNT=N (spin N rounds, then sleep)
#   active        OMP_WAIT_POLICY=active (spin for minutes)
# libgomp's own default (neither variable set) is spin=300000.
#
# usage: bench/waitpolicy.sh [--build DIR] [--out DIR] [--reps K] [--iters N]
#                            [--settings "passive spin=10000 ..."] PROBLEM-local [PROBLEM-global]
#
# 1. build/bench_kernels PROBLEM-local --solvers apgd-ccp,fpp: the measure,
#    W x, one iteration each, threads 1 and 2 alternated K times (default 3).
# 2. `fricon solve` with --threads 1 and 2 (K times, medians): admm (50
#    iterations, constant rho: CHOLMOD's triangular solves between the
#    threaded loops) on PROBLEM-local; gadmm (30 iterations) and ipm-mdp
#    (3 iterations on (M, H): UMFPACK between the loops) on PROBLEM-global:
#    wall and CPU seconds (user + system) of the whole process.  A spinning thread shows
#    as CPU seconds above the wall seconds while the other computes alone.
# The load average is printed at the start and the end: the ratios are the
# machine's only when it is otherwise idle.  Writes DIR/waitpolicy.txt.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$HERE/../build
OUT=bench-waitpolicy
REPS=3
ITERS=30
SETTINGS="passive spin=1000 spin=10000 spin=100000 spin=300000 active"
PROBS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build|--out|--reps|--iters|--settings)
      [ $# -ge 2 ] || { echo "waitpolicy: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --settings) SETTINGS=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "waitpolicy: unknown argument '$1'" >&2; exit 2 ;;
    *) PROBS+=("$1"); shift ;;
  esac
done
[ ${#PROBS[@]} -ge 1 ] || { echo "waitpolicy: no problem given" >&2; exit 2; }
LOCAL=${PROBS[0]}
GLOBAL=${PROBS[1]:-}
FRICON=$BUILD/fricon
KERNELS=$BUILD/bench_kernels
mkdir -p "$OUT"
REPORT=$OUT/waitpolicy.txt
: > "$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }
export OPENBLAS_NUM_THREADS=1
say "# bench/waitpolicy.sh $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
say "# fricon $(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null || echo '?'), reps $REPS"

# run_env SETTING CMD...: CMD under the setting (both variables set, so
# that neither the CLI nor libgomp picks its own)
run_env() {
  local s=$1; shift
  case "$s" in
    passive) env OMP_WAIT_POLICY=passive GOMP_SPINCOUNT=0 "$@" ;;
    active) env OMP_WAIT_POLICY=active GOMP_SPINCOUNT=30000000000 "$@" ;;
    spin=*) env -u OMP_WAIT_POLICY GOMP_SPINCOUNT="${s#spin=}" "$@" ;;
  esac
}
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

for s in $SETTINGS; do
  say ""
  say "== $s"
  run_env "$s" "$KERNELS" "$LOCAL" --reps "$REPS" --iters "$ITERS" --solvers apgd-ccp,fpp 2>&1 \
    | grep -E '^(measure|product|apgd|fpp)' | tee -a "$REPORT"
  printf '%-34s %9s %9s %9s %9s %7s\n' "whole solve" "wall 1" "cpu 1" "wall 2" "cpu 2" "ratio" | tee -a "$REPORT"
  for job in "admm|$LOCAL|--solver admm --max-iter 50 --set admm.rho_strategy=0 --set admm.probe=0" \
             "ipm-mdp|$GLOBAL|--solver ipm-mdp --max-iter 3" \
             "gadmm|$GLOBAL|--solver gadmm --max-iter 30 --set admm.rho_strategy=0"; do
    IFS='|' read -r name prob args <<< "$job"
    [ -n "$prob" ] || continue
    w1=() c1=() w2=() c2=()
    for k in $(seq 1 "$REPS"); do
      order="1 2"; [ $((k % 2)) = 0 ] && order="2 1"
      for t in $order; do
        tf=$(mktemp)
        # shellcheck disable=SC2086
        run_env "$s" /usr/bin/time -f '%e %U %S' -o "$tf" "$FRICON" solve "$prob" $args --threads "$t" --quiet > /dev/null 2>&1
        read -r w u sy < <(tail -1 "$tf"); rm -f "$tf"
        c=$(awk -v a="$u" -v b="$sy" 'BEGIN { print a + b }')
        if [ "$t" = 1 ]; then w1+=("$w"); c1+=("$c"); else w2+=("$w"); c2+=("$c"); fi
      done
    done
    mw1=$(median "${w1[@]}"); mc1=$(median "${c1[@]}"); mw2=$(median "${w2[@]}"); mc2=$(median "${c2[@]}")
    printf '%-34s %9.3f %9.3f %9.3f %9.3f %7.2f\n' "$name" "$mw1" "$mc1" "$mw2" "$mc2" \
      "$(awk -v a="$mw1" -v b="$mw2" 'BEGIN { print (b > 0 ? a / b : 0) }')" | tee -a "$REPORT"
  done
done
say ""
say "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
