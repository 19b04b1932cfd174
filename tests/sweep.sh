#!/bin/bash
# The reliability sweep: every registered solver on every problem (of a
# dimension it handles), each run with a time limit, checked for a clean
# end: exit status 0 or 1, one JSON object with a status, nothing on
# stderr (no sanitizer report, no library output), wall time within the
# limit plus a margin, and (outside sanitizer builds) an address-space cap.
#
# usage: sweep.sh FRICON DATA_DIR [--limit SECONDS] [--full] [--asan]
#   default: a subset of small and large problems, limit 0.2 s (CI);
#   --full: every file under DATA_DIR; --asan: no RLIMIT_AS (ASan reserves
#   terabytes of shadow memory) and a wider time margin.
set -u
BIN=$1 DATA=$2; shift 2
LIMIT=0.2 FULL=0 ASAN=0
while [ $# -gt 0 ]; do
  case $1 in
    --limit) LIMIT=$2; shift ;;
    --full) FULL=1 ;;
    --asan) ASAN=1 ;;
    *) echo "sweep.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if [ $FULL = 1 ]; then
  mapfile -t FILES < <(find "$DATA" -type f \( -name '*.dat' -o -name '*.hdf5' \) | sort)
else
  FILES=()
  for f in fc3d/Capsules-i122-1617.dat fc3d/BoxesStack1-i100000-32.hdf5.dat fc3d/Rover1039.dat \
           fc3d/KaplasTower-i1061-4.hdf5.dat fc3d/FC3D_Example1_SBM.dat \
           fc2d/fc2d_granularflowonwall_00667_00000.dat fc2d/FrictionContactProblem00071.dat \
           global/spheres-in-a-box-98-i10000-256-10.hdf5 global/CubeH8.hdf5 global/GFC3D_TwoRods1.dat \
           global/gfc2d_granularflowonwall_00069_00350.dat \
           rolling/Chute-ndof-768-nc-4-3.hdf5 rolling/RFC3D_cube_1.dat; do
    # sanitizer builds: the large ones only (test_golden's quick mode runs
    # every solver on the small ones there)
    [ "$ASAN" = 1 ] && ! [[ $f =~ Capsules|KaplasTower|granularflow|spheres-in-a-box ]] && continue
    [ -f "$DATA/$f" ] && FILES+=("$DATA/$f")
  done
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# margin over the limit: reading the file, the reduction of a global
# problem, the final measure; sanitizers slow everything down
MARGIN=$(awk -v l="$LIMIT" -v a=$ASAN 'BEGIN { print (a ? 20 : 5) + 2 * l }')

# one run: solver file -> a line "ok|FAIL solver file status seconds why"
run_one() {
  local s=$1 f=$2 out err rc t0 t1 secs st
  out=$TMP/$$.$RANDOM.out err=$TMP/$$.$RANDOM.err
  t0=$(date +%s.%N)
  (
    [ "$ASAN" = 1 ] || ulimit -v 8388608   # 8 GiB of address space
    exec timeout -k 5 "$(awk -v m="$MARGIN" -v l="$LIMIT" 'BEGIN{print m + l + 30}')" \
      "$BIN" solve "$f" --solver "$s" --time-limit "$LIMIT" --json
  ) >"$out" 2>"$err"
  rc=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  st=$(sed -n 's/.*"status": "\([a-z-]*\)".*/\1/p' "$out")
  local why=""
  if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then why="exit $rc: $(head -c 300 "$err" | tr '\n' ' ')"
  elif [ -s "$err" ]; then why="stderr: $(head -c 300 "$err" | tr '\n' ' ')"
  elif [ -z "$st" ]; then why="no status in: $(head -c 200 "$out")"
  elif awk -v s="$secs" -v l="$LIMIT" -v m="$MARGIN" 'BEGIN { exit !(s > l + m) }'; then
    why="overran: ${secs} s for a ${LIMIT} s limit"
  fi
  if [ -n "$why" ]; then echo "FAIL $s $(basename "$f") ${st:-none} $secs $why"
  else echo "ok $s $(basename "$f") $st $secs"; fi
  rm -f "$out" "$err"
}
export -f run_one
export BIN LIMIT MARGIN ASAN TMP
# the environment fricon's restart would set (app/main.c): no restart then
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1

# dimension of each file, solvers with their dimensions
: >"$TMP/jobs"
mapfile -t SOLVERS < <("$BIN" solvers | awk '{ print $1 " " $2 }')
for f in "${FILES[@]}"; do
  d=$("$BIN" info "$f" 2>/dev/null | sed -n 's/^d: //p')
  [ -n "$d" ] || { echo "FAIL info $(basename "$f") unreadable"; continue; }
  for sd in "${SOLVERS[@]}"; do
    s=${sd%% *} dims=${sd#* d=}
    case ",$dims," in *",$d,"*) printf '%s\t%s\n' "$s" "$f" >>"$TMP/jobs" ;; esac
  done
done
njobs=$(wc -l <"$TMP/jobs")
tr '\n' '\0' <"$TMP/jobs" | xargs -0 -P 2 -n 1 bash -c 'IFS=$'"'"'\t'"'"' read -r s f <<<"$0"; run_one "$s" "$f"' \
  >"$TMP/results"
sort "$TMP/results"
fails=$(grep -c '^FAIL' "$TMP/results")
echo "sweep: $njobs runs ($((${#SOLVERS[@]})) solvers, ${#FILES[@]} files, limit $LIMIT s), $fails failures"
[ "$fails" -eq 0 ]
