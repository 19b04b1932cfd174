#!/bin/bash
# The command line's main paths under valgrind memcheck: no invalid access,
# no use of uninitialised values, no definite or indirect leak.
# usage: valgrind.sh FRICON EXAMPLES
set -u
BIN=$1 EX=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped"; exit 0; }
fail=0
# set, so that fricon does not restart itself single-threaded (app/main.c):
# valgrind would not follow that exec and would check nothing
export OMP_THREAD_LIMIT=1
while IFS= read -r args; do
  eval "set -- $args"
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    "$BIN" "$@" >/dev/null 2>"$TMP/err"
  rc=$?
  if [ $rc -eq 99 ] || grep -q '^==[0-9]*==' "$TMP/err"; then
    fail=$((fail + 1)); echo "FAIL: fricon $args"; head -30 "$TMP/err"
  else echo "ok: fricon $args (exit $rc)"; fi
done <<EOF
info $EX/Capsules-i125-1213.hdf5
info $EX/GFC3D_TwoRods1.dat
solve $EX/Rover1039.dat --json
solve $EX/GFC3D_TwoRods1.dat --output $TMP/s.sol
solve $EX/RFC3D_sphere_1.dat --json
solve $EX/FrictionContactProblem00394.dat --json
solve $EX/Rover1039.dat --solver nsn-hybrid --json
convert $EX/Rover1039.dat $TMP/r.hdf5
convert $TMP/r.hdf5 $TMP/r.dat
convert $EX/GFC3D_TwoRods1.dat $TMP/g.hdf5
solve $TMP/g.hdf5 --json
solve $EX/nonexistent.dat
solve $EX/Rover1039.dat --solver no-such-solver
solvers
EOF
[ $fail -eq 0 ]
