#!/bin/bash
# Issue 28's "done when", measured in one run on this machine, threads 2
# against threads 1, and summed up in one table: the scripts that measure
# each criterion run one after the other, and their figures are read back
# from their reports.
#
# usage: bench/criteria28.sh --column FILE --pile FILE [--fricon PATH]
#                            [--out DIR] [--reps N] [--million DIR]
#
# --column: the 112768-contact column step (local form; bench/mbd_scale.sh
#   makes it); --pile: a pile step of 10^4+ contacts (local form).
# 1. bench/threads.sh on both: nsgs per sweep with 1 and 2 threads (file
#    order against the stretches) and each sweep against the probe's
#    bandwidth bound (the column's, with 1 and 2 threads).
# 2. bench/parallel.sh (its --reuse problems under DIR/par): the error
#    measure, W x, admm, apgd-ccp per iteration; the detection of
#    `fricon simulate pile --count 10000`, over its first 5 steps (the
#    first allocates the lists) and over steps 6-15.
# 3. With --million DIR (bench/million.sh's --out; its step is generated
#    there when missing, about 10 min): the 10^6-contact chute step to
#    1e-4 with 1 thread, then with 2: the 2-thread time and peak memory,
#    and nsgs's sweeps with 2 threads against 1 (the sequential count).
# Not here: the ThreadSanitizer job (tests: test_threads, scripts/test.sh's
# TSan build).
# Writes DIR/criteria.txt (default DIR bench-criteria) and the scripts'
# own reports beside it.  Run it on an idle machine: the load average is
# printed first and last, and on a shared one a 2-thread time moves 10-30%
# from run to run (bench/README.md).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FRICON=$HERE/../build/fricon OUT=bench-criteria REPS=5 COLUMN='' PILE='' MILLION=''
while [ $# -gt 0 ]; do
  case "$1" in
    --column|--pile|--fricon|--out|--reps|--million)
      [ $# -ge 2 ] || { echo "criteria28: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --column) COLUMN=$2; shift 2 ;;
    --pile) PILE=$2; shift 2 ;;
    --fricon) FRICON=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --million) MILLION=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "criteria28: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$COLUMN" ] || [ -z "$PILE" ]; then echo "criteria28: --column and --pile are needed" >&2; exit 2; fi
[ -x "$FRICON" ] || { echo "criteria28: no fricon at $FRICON (build first)" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=$(cd "$(dirname "$FRICON")" && pwd)
REPORT=$OUT/criteria.txt
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# bench/criteria28.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(load), fricon $(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null)" > "$REPORT"

bash "$HERE/threads.sh" --fricon "$FRICON" --reps "$REPS" "$COLUMN" "$PILE" > "$OUT/threads.txt" 2>&1
bash "$HERE/parallel.sh" --build "$BUILD" --out "$OUT/par" --reuse > "$OUT/parallel.log" 2>&1
if [ -n "$MILLION" ]; then
  bash "$HERE/million.sh" --fricon "$FRICON" --out "$MILLION" --reuse --solvers nsgs --threads "1 2" \
    > "$OUT/million.txt" 2>&1
fi

# "name value target sense": met when value >= target (sense ge) or <= (le)
row() {
  local met=no
  if [ -z "$2" ]; then met="not measured"
  elif awk -v v="$2" -v t="$3" -v s="$4" 'BEGIN { exit !((s == "ge" && v >= t) || (s == "le" && v <= t)) }'; then met=yes
  fi
  printf '| %s | %s | %s %s | %s |\n' "$1" "${2:--}" "$([ "$4" = ge ] && echo '>=' || echo '<=')" "$3" "$met"
}
# threads.sh's figures for the block of FILE: the speed-up and the two bounds
block() { awk -v f="$1" '$0 == f { on = 1; next } /^\// { on = 0 } on' "$OUT/threads.txt"; }
speedup() { block "$1" | sed -n 's/.*file order 1 thread -> stretches 2 threads: \([0-9.]*\)x.*/\1/p'; }
bound() { block "$1" | sed -n "s/.*sweep \/ bound:.*$2 \([0-9.]*\)x.*/\1/p" | head -1; }
# the ratio: the third number after the kernel's name (a results or
# contacts column may follow it, or not)
kernel() {
  awk -v k="$1" 'index($0, k) == 1 {
    rest = substr($0, length(k) + 1); n = split(rest, f, " ")
    for (i = 1; i <= n; i++) if (f[i] ~ /^[0-9.e+-]+$/ && ++c == 3) { print f[i]; exit } }' "$OUT/par/parallel.txt"
}
{
  echo
  echo "| criterion | measured | target | met |"
  echo "|---|---:|---:|---|"
  row "nsgs per sweep, $(basename "$COLUMN")" "$(speedup "$COLUMN")" 1.7 ge
  row "nsgs per sweep, $(basename "$PILE")" "$(speedup "$PILE")" 1.7 ge
  row "column sweep / bound, 1 thread" "$(bound "$COLUMN" 'file order 1 thread')" 1.5 le
  row "column sweep / bound, 2 threads" "$(bound "$COLUMN" 'stretches 2 threads')" 1.5 le
  row "error measure" "$(kernel measure)" 1.7 ge
  row "admm iteration" "$(kernel 'admm (iteration)')" 1.7 ge
  row "apgd-ccp iteration" "$(kernel 'apgd-ccp (iteration)')" 1.7 ge
  row "detection, simulate pile 10^4, steps 1-5" "$(kernel 'detection (per step)')" 1.7 ge
  row "detection, simulate pile 10^4, steps 6-15" "$(kernel 'detection, later steps')" 1.7 ge
  if [ -n "$MILLION" ]; then
    read -r st it2 sec kb <<< "$(awk '$1 == "nsgs" && $2 == 2 { print $3, $4, $6, $10; exit }' "$OUT/million.txt")"
    met=$(awk -v st="${st:-}" -v s="${sec:-1e9}" -v k="${kb:-1e12}" \
      'BEGIN { print (st == "converged" && s <= 60 && k <= 4194304) ? "yes" : "no" }')
    echo "| 10^6 chute step, 2 threads: status, solve s, peak kB | ${st:-?} ${sec:-?} ${kb:-?} | converged, 60 s, 4194304 kB | $met |"
    # the sweeps to 1e-4: 2 threads over 1, both converged
    read -r st1 it1 <<< "$(awk '$1 == "nsgs" && $2 == 1 { print $3, $4; exit }' "$OUT/million.txt")"
    sweeps=$(awk -v a="${st1:-}" -v b="${st:-}" -v i="${it1:-0}" -v j="${it2:-0}" \
      'BEGIN { if (a == "converged" && b == "converged" && i > 0) printf "%.3f", j / i }')
    row "nsgs sweeps to 1e-4, 2 threads / 1 (10^6 step: ${it2:-?} / ${it1:-?})" "$sweeps" 1.1 le
  fi
  echo
  echo "# load at the end: $(load)"
} >> "$REPORT"
cat "$REPORT"
