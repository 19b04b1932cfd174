#!/bin/bash
# The distributed solvers under mpirun -np NP (ctest -L mpi, registered
# with FRICON_MPI=ON only): dist-nncg on every shared global 3D problem
# from zero, dist-nsgs on LMGC..00046, both on a generated pile step
# from its warm start, reach 1e-8; so does dist-apgd on the shared
# problems of more than 3 contacts but spheres-in-a-box (1774 iterations
# to 1e-5 there: docs/distributed.md); the residual of the gathered
# solution file recomputed by fricon
# check and by the independent checker (fccheck.py, r only: u through W;
# every solution in one Python process at the end);
# the pile has interface bodies; --max-iter and --time-limit are honoured
# on every rank; rank 0 alone prints (one JSON line); bad input is one
# line and exit 2 (a guess that one rank cannot read too); one rank
# sweeps as serial velocity-form Gauss-Seidel (dist-nsgs) and as serial
# nncg (dist-nncg), checked with NP = 2;
# simulate (which writes files) is refused under several ranks.
# usage: mpi.sh FRICON SHARED_DATA CHECKER MPIRUN NP
set -u
BIN=$1 DATA=$2 CHECKER=$3 MPIRUN=$4 NP=$5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL (np $NP): $*" >&2; }
run() { "$MPIRUN" --oversubscribe -q -np "$NP" "$BIN" "$@"; }
json_field() { sed -n "s/.*\"$1\": \"*\([^,}\"]*\).*/\1/p" "$2"; }

# solved SOLVER FILE TOL [ARGS...]: converged, one JSON line, the residual
# of the written solution <= TOL by fricon check, and by fccheck.py in
# check_pending at the end (one Python process for every solution: its
# start, numpy, scipy and h5py, cost 1-2 s wall a call on a loaded machine)
nsol=0
solved() {
  local solver=$1 f=$2 tol=$3; shift 3
  nsol=$((nsol + 1))
  local sol=$TMP/sol.$nsol
  run solve "$f" --solver "$solver" --json --output "$sol" "$@" >"$TMP/json" 2>"$TMP/err"
  local rc=$?
  if [ $rc -ne 0 ]; then bad "$solver $f: exit $rc $(head -c 300 "$TMP/json" "$TMP/err")"; return; fi
  [ "$(wc -l <"$TMP/json")" -eq 1 ] || { bad "$solver $f: $(wc -l <"$TMP/json") lines on stdout"; return; }
  local chk
  chk=$("$BIN" check "$f" "$sol" | head -n 1)
  awk -v a="$chk" -v t="$tol" 'BEGIN { exit !(a + 0 <= t) }' \
    && ok || bad "$solver $f: fricon check $chk (tol $tol; $(cat "$TMP/json"))"
  echo "$f $sol $tol $solver" >>"$TMP/pending"
}

# fccheck.py's own main on every solution written by solved, in one process
check_pending() {
  [ -x /usr/bin/python3 ] && [ -f "$CHECKER" ] && [ -f "$TMP/pending" ] || return
  /usr/bin/python3 - "$CHECKER" "$TMP/pending" >"$TMP/indep" 2>&1 <<'EOF'
import contextlib, importlib.util, io, sys
spec = importlib.util.spec_from_file_location("fccheck", sys.argv[1])
fccheck = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fccheck)
for line in open(sys.argv[2]):
    f, sol = line.split()[:2]
    sys.argv = [sys.argv[0], f, sol]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            fccheck.main()
        print(out.getvalue().strip())
    except Exception as e:
        print("error", type(e).__name__)
EOF
  local n=0 f sol tol solver indep
  while read -r f sol tol solver; do
    n=$((n + 1))
    indep=$(sed -n "${n}p" "$TMP/indep")
    awk -v b="$indep" -v t="$tol" 'BEGIN { exit !(b ~ /^[0-9][0-9.e+-]*$/ && b + 0 <= t) }' \
      && ok || bad "$solver $f: fccheck $indep (tol $tol)"
  done <"$TMP/pending"
}

# ---- the shared global 3D problems, from zero, to 1e-8
n3=0
for f in "$DATA"/global/*; do
  info=$("$BIN" info "$f" 2>/dev/null)
  [ "$(echo "$info" | sed -n 's/^kind: //p')" = gfc3d ] || continue
  n3=$((n3 + 1))
  solved dist-nncg "$f" 1e-8 --cold
  nc=$(echo "$info" | sed -n 's/^nc: //p')
  [ "${nc:-0}" -gt 3 ] || continue
  case $f in *LMGC*) solved dist-nsgs "$f" 1e-8 --cold ;; esac
  case $f in   # spheres-in-a-box, the slow one, left out for the test's time
    *spheres-in-a-box*) ;;
    *) solved dist-apgd "$f" 1e-8 --cold ;;
  esac
done
[ $n3 -ge 5 ] && ok || bad "only $n3 global 3D problems under $DATA/global"

# ---- a generated pile step (120 spheres, 25 steps: about 360 contacts)
pile=$TMP/pile/pile-000025.hdf5
"$BIN" simulate pile --count 120 --steps 25 --every 25 --max-iter 200 --quiet --export "$TMP/pile" \
  >/dev/null 2>"$TMP/err"
if [ -f "$pile" ]; then
  solved dist-nsgs "$pile" 1e-8
  solved dist-nncg "$pile" 1e-8
  # one rank is Gauss-Seidel on the velocity form in file order: nncg
  # without its conjugate step and in file order, serial, to the last digit
  if [ "$NP" = 2 ]; then
    "$MPIRUN" -q -np 1 "$BIN" solve "$pile" --solver dist-nsgs --json >"$TMP/d1" 2>/dev/null
    "$BIN" solve "$pile" --solver nncg --set nncg.accel=0 --set nncg.order=3 --json >"$TMP/s1" 2>/dev/null
    for k in status iterations residual; do
      [ "$(json_field $k "$TMP/d1")" = "$(json_field $k "$TMP/s1")" ] \
        && ok || bad "pile, one rank: $k differs from serial sweeps: $(cat "$TMP/d1" "$TMP/s1")"
    done
    # and dist-nncg is serial nncg (file order, its default)
    "$MPIRUN" -q -np 1 "$BIN" solve "$pile" --solver dist-nncg --json >"$TMP/d1" 2>/dev/null
    "$BIN" solve "$pile" --solver nncg --set nncg.order=3 --json >"$TMP/s1" 2>/dev/null
    for k in status iterations residual; do
      [ "$(json_field $k "$TMP/d1")" = "$(json_field $k "$TMP/s1")" ] \
        && ok || bad "pile, one rank: $k differs from serial nncg: $(cat "$TMP/d1" "$TMP/s1")"
    done
  fi
  # --max-iter: exit 1, status max-iter after exactly 3 sweeps; the log
  # counts the interface bodies
  run solve "$pile" --solver dist-nsgs --json --cold --max-iter 3 --verbose --verbose >"$TMP/json" 2>"$TMP/log"
  rc=$?
  [ $rc -eq 1 ] && [ "$(json_field status "$TMP/json")" = max-iter ] && [ "$(json_field iterations "$TMP/json")" = 3 ] \
    && ok || bad "pile --max-iter 3: exit $rc $(cat "$TMP/json")"
  copies=$(sed -n 's/.*interface: \([0-9]*\) body copies.*/\1/p' "$TMP/log")
  for solver in dist-nncg dist-apgd; do
    run solve "$pile" --solver $solver --json --cold --max-iter 3 >"$TMP/j3" 2>/dev/null
    rc=$?
    [ $rc -eq 1 ] && [ "$(json_field status "$TMP/j3")" = max-iter ] && [ "$(json_field iterations "$TMP/j3")" = 3 ] \
      && ok || bad "$solver pile --max-iter 3: exit $rc $(cat "$TMP/j3")"
  done
  [ "${copies:-0}" -gt 0 ] && ok || bad "pile: no interface bodies on $NP ranks ($(head -c 300 "$TMP/log"))"
  # the partition balances the owned contacts' cost (each sweep's work: a
  # contact active in the starting r counts dist.active_cost, 4): the
  # busiest rank within 3% of the total / NP (the weights by touched
  # contacts gave 7-9% by count on this step); from the file's warm start
  run solve "$pile" --solver dist-nsgs --max-iter 1 --verbose --verbose >/dev/null 2>"$TMP/log"
  busiest=$(sed -n 's/.*cost ([^)]*): \([0-9]*\) on the busiest rank of \([0-9]*\).*/\1/p' "$TMP/log")
  total=$(sed -n 's/.*cost ([^)]*): \([0-9]*\) on the busiest rank of \([0-9]*\).*/\2/p' "$TMP/log")
  ncp=$(json_field nc "$TMP/json")
  [ "${total:-0}" -gt "${ncp:-0}" ] && ok || bad "pile: no contact active in the warm start (cost $total, nc $ncp)"
  awk -v b="${busiest:-0}" -v n="${total:-0}" -v k="$NP" 'BEGIN { exit !(n > 0 && b > 0 && b * k <= 1.03 * n) }' \
    && ok || bad "pile: cost $busiest of $total on the busiest of $NP ranks"
  # a guess (/guesses/1/r one value short) that one rank alone cannot read
  # (MPMD: the other ranks read the good file, the same problem) fails
  # every rank, exit 2, one line naming the file, on rank 0 or another;
  # it left the others in the barrier before the solve (the timeout)
  if /usr/bin/python3 -c "
import h5py, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], 'r+') as f:
    n = f['guesses/1/r'].shape[0]; del f['guesses/1/r']; f['guesses/1/r'] = [0.0] * (n - 1)
" "$pile" "$TMP/badguess.hdf5" 2>/dev/null; then
    for first in good bad; do
      if [ $first = good ]; then f1=$pile f2=$TMP/badguess.hdf5; else f1=$TMP/badguess.hdf5 f2=$pile; fi
      timeout 120 "$MPIRUN" --oversubscribe -q -np 1 "$BIN" solve "$f1" --solver dist-nncg --json : \
        -np $((NP - 1)) "$BIN" solve "$f2" --solver dist-nncg --json >"$TMP/out" 2>"$TMP/err"
      rc=$?
      [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "badguess.hdf5: /guesses/1/r" "$TMP/err" \
        && ok || bad "a guess unreadable on some ranks ($first file on rank 0): exit $rc, stderr: $(head -c 300 "$TMP/err")"
    done
  else
    bad "could not write the malformed guess of $pile"
  fi
  # --time-limit: a tight limit ends the run on every rank
  run solve "$pile" --solver dist-nsgs --json --cold --tol 1e-300 --time-limit 0.05 >"$TMP/json" 2>/dev/null
  rc=$?
  [ $rc -eq 1 ] && [ "$(json_field status "$TMP/json")" = time-limit ] \
    && ok || bad "pile --time-limit 0.05: exit $rc $(cat "$TMP/json")"
else
  bad "simulate pile exported nothing: $(head -c 300 "$TMP/err")"
fi

# ---- bad input: exit 2, one line naming the file (rank 0 speaks)
run solve "$TMP/nonexistent.hdf5" --solver dist-nsgs >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q nonexistent "$TMP/err" \
  && ok || bad "missing file: exit $rc, stderr: $(head -c 300 "$TMP/err")"

# ---- M's definiteness, checked per diagonal block with the blocks split
# over the ranks (src/dist/read.c): a negative definite M (the shared
# LMGC problem's M negated, an FE body of 162 dofs) refused as the serial
# reader refuses it, and a problem whose M is one block of 2049 dofs or
# more would go through the serial check (not covered: none here)
LM=$DATA/global/LMGC_GlobalFrictionContactProblem00046.hdf5
if [ -f "$LM" ] && /usr/bin/python3 -c "
import h5py, shutil, sys
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], 'r+') as f: f['fclib_global/M/x'][...] *= -1.0
" "$LM" "$TMP/negdef_M.hdf5" 2>/dev/null; then
  for s in dist-nncg dist-apgd; do
    run solve "$TMP/negdef_M.hdf5" --solver $s >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] \
      && grep -q "negdef_M.hdf5: matrix M is not positive definite" "$TMP/err" \
      && ok || bad "$s, negative definite M: exit $rc, stderr: $(head -c 300 "$TMP/err")"
  done
else
  bad "could not write the negative definite copy of $LM"
fi

# ---- a command that writes files is refused under several ranks
run simulate pile --count 10 --steps 1 --export "$TMP/twice" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -e "$TMP/twice" ] \
  && ok || bad "simulate under mpirun: exit $rc, stderr: $(head -c 300 "$TMP/err")"

check_pending
echo "mpi.sh (np $NP): $pass passed, $fail failed"
[ $fail -eq 0 ]
