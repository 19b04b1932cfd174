#!/bin/bash
# auto against every solver, per family of a generated collection (issue 27).
#
# usage: bench/families.sh [--solvers LIST] [--time-limit S] [--form global|local]
#                          [--half tuning|validation|all] [--warm|--cold]
#                          [--repeat N] [--wall|--cpu-limit] [--fricon PATH] COLLECTION OUTDIR
#
# COLLECTION is the output of bench/collections.sh (its manifest.csv lists
# each file with its family, half and tolerance).  For each family and
# half, `fricon bench` runs the solvers on the files of that form at the
# family's tolerance (warm: from each file's /guesses, the default; --cold:
# from zero) into OUTDIR/runs/FAMILY-HALF/; then `fricon profile
# --manifest` writes OUTDIR/FAMILY-HALF/ (profiles, summary) and
# OUTDIR/families.md: auto's time over the per-problem oracle (the fastest
# other fricon solver that reached the tolerance).  --repeat N (default 3):
# `fricon bench --repeat`, a solve under 50 ms runs N times, the fastest kept;
# times are the solves' CPU seconds (`fricon bench --cpu`) unless --wall;
# --cpu-limit: the time limit counts CPU seconds too (`fricon bench
# --cpu-limit`), for runs on a loaded machine.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FRICON=$HERE/../build/fricon
SOLVERS=auto,nsgs,nsn-hybrid,prox,ipm-mdp,admm,gadmm,lemke,stick
LIMIT=30
FORM=global
HALF=all
START=--warm
REPEAT=3
CLOCK=--cpu
COLL=
OUT=
while [ $# -gt 0 ]; do
  case "$1" in
    --solvers|--time-limit|--form|--half|--fricon|--repeat)
      [ $# -ge 2 ] || { echo "families: $1 needs a value" >&2; exit 2; }
      case "$1" in
        --solvers) SOLVERS=$2 ;; --time-limit) LIMIT=$2 ;; --form) FORM=$2 ;;
        --half) HALF=$2 ;; --fricon) FRICON=$2 ;; --repeat) REPEAT=$2 ;;
      esac
      shift 2 ;;
    --warm|--cold) START=$1; shift ;;
    --wall) CLOCK=; shift ;;
    --cpu-limit) CLOCK=--cpu-limit; shift ;;
    -*) echo "families: unknown option '$1'" >&2; exit 2 ;;
    *) if [ -z "$COLL" ]; then COLL=$1; elif [ -z "$OUT" ]; then OUT=$1
       else echo "families: COLLECTION and OUTDIR expected" >&2; exit 2; fi
       shift ;;
  esac
done
[ -n "$OUT" ] || { echo "usage: bench/families.sh [options] COLLECTION OUTDIR" >&2; exit 2; }
MAN=$COLL/manifest.csv
[ -r "$MAN" ] || { echo "families: $MAN: not readable (run bench/collections.sh first)" >&2; exit 2; }
case "$FORM" in global|local) ;; *) echo "families: --form global or local" >&2; exit 2 ;; esac
case "$HALF" in tuning|validation|all) ;; *) echo "families: --half tuning, validation or all" >&2; exit 2 ;; esac
mkdir -p "$OUT/runs" || exit 2

# the manifest's columns by name
cols=$(head -1 "$MAN")
col() { echo "$cols" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
CF=$(col file); CFAM=$(col family); CH=$(col half); CT=$(col tolerance); CFORM=$(col form)
[ -n "$CF" ] && [ -n "$CFAM" ] && [ -n "$CH" ] && [ -n "$CT" ] && [ -n "$CFORM" ] ||
  { echo "families: $MAN: needs the columns file, family, half, tolerance, form" >&2; exit 2; }

csvs=()
for group in $(tail -n +2 "$MAN" | awk -F, -v f="$CFAM" -v h="$CH" '{print $f "," $h}' | sort -u); do
  fam=${group%,*}; half=${group#*,}
  [ "$HALF" = all ] || [ "$HALF" = "$half" ] || continue
  tol=$(tail -n +2 "$MAN" | awk -F, -v f="$CFAM" -v h="$CH" -v t="$CT" -v a="$fam" -v b="$half" \
        '$f == a && $h == b {print $t; exit}')
  mapfile -t files < <(tail -n +2 "$MAN" | awk -F, -v f="$CFAM" -v h="$CH" -v c="$CF" -v o="$CFORM" \
        -v a="$fam" -v b="$half" -v form="$FORM" '$f == a && $h == b && $o == form {print $c}')
  [ ${#files[@]} -gt 0 ] || continue
  for i in "${!files[@]}"; do   # manifest paths are relative to the collection
    case "${files[$i]}" in /*) ;; *) files[$i]=$COLL/${files[$i]} ;; esac
  done
  echo "families: $fam ($half): ${#files[@]} files at tol $tol" >&2
  "$FRICON" bench --solvers "$SOLVERS" --tol "$tol" --time-limit "$LIMIT" --repeat "$REPEAT" $CLOCK $START \
            --out "$OUT/runs/$fam-$half" "${files[@]}" || true
  [ -f "$OUT/runs/$fam-$half/results.csv" ] && csvs+=("$OUT/runs/$fam-$half/results.csv")
done
[ ${#csvs[@]} -gt 0 ] || { echo "families: no files of form $FORM in $MAN" >&2; exit 1; }
"$FRICON" profile --manifest "$MAN" --out "$OUT" "${csvs[@]}"
