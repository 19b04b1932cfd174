#!/bin/bash
# fricon's solvers and Siconos' on the same problems, tolerance and limits,
# then one performance profile and one summary with both side by side.
#
# usage: bench/compare-siconos.sh [--out DIR] [--fricon PATH] [--solvers a,b,...]
#            [--tol T] [--time-limit S] [--mem-limit MB] [--max-iter N]
#            [--kill-margin S] [--set NAME=VALUE]... FILE|DIR...
#
# --solvers: names starting with "siconos-" select Siconos solvers, the
# others fricon's; a side with no name in the list runs all its solvers.
# --set applies to fricon's solvers only.  Writes DIR/fricon/results.csv,
# DIR/siconos/results.csv, and in DIR the merged results.csv, summary.md,
# profile-time.{svg,png} and profile-iterations.{svg,png}.
# Siconos needs Debian's python3-siconos (run by /usr/bin/python3); without
# it the comparison is fricon alone, with a warning.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=bench-compare
FRICON=""
TOL=1e-8
TIME_LIMIT=10
common=() fricon_only=() inputs=() fsolvers="" ssolvers=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out|--fricon|--solvers|--tol|--time-limit|--mem-limit|--max-iter|--kill-margin|--set)
      if [ $# -lt 2 ]; then echo "compare-siconos: $1 needs a value" >&2; exit 2; fi ;;
  esac
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    --fricon) FRICON=$2; shift 2 ;;
    --tol) TOL=$2; shift 2 ;;
    --time-limit) TIME_LIMIT=$2; shift 2 ;;
    --mem-limit|--max-iter|--kill-margin) common+=("$1" "$2"); shift 2 ;;
    --set) fricon_only+=("$1" "$2"); shift 2 ;;
    --solvers)
      IFS=, read -r -a names <<<"$2"
      for n in "${names[@]}"; do
        case "$n" in
          siconos-*) ssolvers="$ssolvers${ssolvers:+,}$n" ;;
          ?*) fsolvers="$fsolvers${fsolvers:+,}$n" ;;
        esac
      done
      shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "compare-siconos: unknown option '$1'" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
if [ ${#inputs[@]} -eq 0 ]; then
  echo "usage: compare-siconos.sh [--out DIR] [fricon bench options] FILE|DIR..." >&2
  exit 2
fi
if [ -z "$FRICON" ]; then
  if [ -x "$HERE/../build/fricon" ]; then FRICON="$HERE/../build/fricon"
  else FRICON=$(command -v fricon || true); fi
fi
if [ -z "$FRICON" ] || [ ! -x "$FRICON" ]; then
  echo "compare-siconos: no fricon program (build it, or give --fricon PATH)" >&2
  exit 2
fi
common+=(--tol "$TOL" --time-limit "$TIME_LIMIT")
mkdir -p "$OUT" || exit 2
start=$(date +%s)

echo "== fricon ($FRICON)" >&2
# --cold: Siconos' side starts from zero; fricon bench would start from a
# file's FClib guess (Capsules, spheres-in-a-box carry one)
"$FRICON" bench --cold "${common[@]}" "${fricon_only[@]}" ${fsolvers:+--solvers "$fsolvers"} \
  --out "$OUT/fricon" "${inputs[@]}" || exit $?
csvs=("$OUT/fricon/results.csv")

if /usr/bin/python3 -c 'import siconos.numerics' 2>/dev/null; then
  echo "== Siconos" >&2
  /usr/bin/python3 "$HERE/siconos/siconos_bench.py" --fricon "$FRICON" "${common[@]}" \
    ${ssolvers:+--solvers "$ssolvers"} --out "$OUT/siconos" "${inputs[@]}" || exit $?
  csvs+=("$OUT/siconos/results.csv")
else
  echo "compare-siconos: python3-siconos is not installed (sh scripts/install-deps.sh --bench): fricon alone" >&2
fi

echo "== profile" >&2
"$FRICON" profile --tol "$TOL" --out "$OUT" "${csvs[@]}" || exit $?
echo "compare-siconos: done in $(( $(date +%s) - start )) s: $OUT/summary.md, $OUT/profile-time.png" >&2
