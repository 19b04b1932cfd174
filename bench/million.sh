#!/bin/bash
# Issue 28's 10^6-contact scale point on a chute flow, in one command.
#
# usage: bench/million.sh [--fricon PATH] [--out DIR] [--count N] [--steps S]
#                         [--gen-sweeps K] [--solvers "nsgs auto ..."]
#                         [--threads "1 2"] [--time-limit S] [--tol T] [--reuse]
#                         [--cpu-clock]
#
# 1. Generation: `fricon simulate chute --count N` (default 250000 spheres:
#    above 10^5 the chute's block is 8 layers deep on a footprint twice as
#    long as wide, src/mbd/scenes.c) runs S steps (default 32, h = 0.01 s:
#    the spheres have landed and flow down the 25-degree chute at about
#    2.5 m/s) with NSGS at tolerance 1e-4, at most K sweeps a step (default
#    20: generation only, the trajectory is not the benchmark), 2 threads,
#    and exports step S in local form with step S-1's impulses as its
#    guess (/guesses/1): DIR/step/chute-0000SS-local.hdf5, about 10^6
#    contacts (W about 1.3e8 stored entries, 1.7 GB).  About 10 min of
#    wall on the idle 2-core machine, 4-5 GB resident.
# 2. `fricon info` of the file (the reading alone: its time and memory).
# 3. For each solver and thread count, one after the other, `fricon solve
#    FILE --solver S --tol T --time-limit TL --threads N --json` (warm: the
#    file's guess) under /usr/bin/time -v: DIR/solve-S-tN.{json,time}.
# DIR/summary.txt: one line per run (status, iterations, residual, solve
# seconds, user and system CPU and wall of the whole process, peak
# resident), the load average before each run.  Give it the machine alone:
# the point is 60 s of wall, and two of these at once need 10 GB.
# --reuse skips step 1 when the file is there.  --cpu-clock: the time limit
# and seconds on the solve's CPU clock (--set cpu_clock=1; with 2 threads
# both threads' CPU counts), a stand-in for the idle machine on a loaded
# one.  Defaults: --out bench-million, --solvers "nsgs auto nncg",
# --threads "1 2", --time-limit 60, --tol 1e-4.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FRICON=$HERE/../build/fricon
OUT=bench-million
COUNT=250000
STEPS=32
GEN_SWEEPS=20
SOLVERS="nsgs auto nncg"
THREADS="1 2"
TL=60
TOL=1e-4
REUSE=0
CPU=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fricon|--out|--count|--steps|--gen-sweeps|--solvers|--threads|--time-limit|--tol)
      [ $# -ge 2 ] || { echo "million: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --fricon) FRICON=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --count) COUNT=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --gen-sweeps) GEN_SWEEPS=$2; shift 2 ;;
    --solvers) SOLVERS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --time-limit) TL=$2; shift 2 ;;
    --tol) TOL=$2; shift 2 ;;
    --reuse) REUSE=1; shift ;;
    --cpu-clock) CPU=(--set cpu_clock=1); shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "million: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$FRICON" ] || { echo "million: no fricon at $FRICON (build first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "million: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
mkdir -p "$OUT/step" || exit 2
FILE=$OUT/step/$(printf 'chute-%06d-local.hdf5' "$STEPS")
load() { cut -d' ' -f1-3 /proc/loadavg; }
# one field of /usr/bin/time -v's report
tv() { sed -n "s/^[[:space:]]*$1: //p" "$2" | head -1; }

if [ $REUSE = 1 ] && [ -f "$FILE" ]; then
  echo "million: reusing $FILE" >&2
else
  echo "million: generating $FILE (load $(load))" >&2
  /usr/bin/time -v "$FRICON" simulate chute --count "$COUNT" --steps "$STEPS" --every "$STEPS" \
    --export-from "$STEPS" --local --export "$OUT/step" --solver nsgs --tol 1e-4 \
    --max-iter "$GEN_SWEEPS" --threads 2 >"$OUT/simulate.txt" 2>"$OUT/simulate.log"
  rc=$?
  # 1: a step not converged within the sweeps, expected at generation
  [ $rc -le 1 ] && [ -f "$FILE" ] || { echo "million: simulate failed (exit $rc): $(grep -m1 'fricon' "$OUT/simulate.log")" >&2; exit 2; }
fi

/usr/bin/time -v "$FRICON" info "$FILE" >"$OUT/info.txt" 2>"$OUT/info.time" ||
  { echo "million: fricon info $FILE failed" >&2; exit 2; }
NC=$(sed -n 's/^nc: //p' "$OUT/info.txt")
{
  echo "# $FILE: nc $NC; fricon info (the reading): user $(tv 'User time (seconds)' "$OUT/info.time") s," \
    "wall $(tv 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$OUT/info.time")," \
    "peak $(tv 'Maximum resident set size (kbytes)' "$OUT/info.time") KB"
  printf '%-8s %7s %-10s %6s %9s %8s %8s %7s %8s %10s  %s\n' solver threads status iters residual \
    solve_s user_s sys_s wall peak_kb "load before"
} | tee "$OUT/summary.txt"
for s in $SOLVERS; do
  for t in $THREADS; do
    base=$OUT/solve-$s-t$t
    before=$(load)
    /usr/bin/time -v "$FRICON" solve "$FILE" --solver "$s" --tol "$TOL" --time-limit "$TL" \
      --threads "$t" "${CPU[@]}" --json >"$base.json" 2>"$base.time"
    j=$(tr -d '\n' <"$base.json")
    field() { echo "$j" | sed -n "s/.*\"$1\": *\"\{0,1\}\([^,\"}]*\).*/\1/p"; }
    printf '%-8s %7s %-10s %6s %9s %8s %8s %7s %8s %10s  %s\n' "$s" "$t" "$(field status)" \
      "$(field iterations)" "$(field residual)" "$(field seconds)" \
      "$(tv 'User time (seconds)' "$base.time")" "$(tv 'System time (seconds)' "$base.time")" \
      "$(tv 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$base.time")" \
      "$(tv 'Maximum resident set size (kbytes)' "$base.time")" "$before" | tee -a "$OUT/summary.txt"
  done
done
