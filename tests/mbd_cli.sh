#!/bin/bash
# `fricon simulate` as a user drives it: the 4x20x4 stack for 100 steps,
# exporting every 50th step (global and local FClib HDF5 with solutions);
# `fricon solve` reads and solves the exported files (also those of the
# box scenes tower, wall, arch); the exported
# solutions are judged by shared/tools/fccheck.py when it runs here;
# --vtk writes frames; bad arguments exit 2 with a message (also those of
# bench/mbd_scale.sh).
# usage: mbd_cli.sh FRICON [FCCHECK]
set -u
FRICON=$1
FCCHECK=${2:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

out=$("$FRICON" simulate stack --steps 100 --every 50 --export "$T/g" --vtk "$T/v" --solver nsgs --quiet 2>"$T/err")
rc=$?
[ $rc = 0 ] || bad "simulate stack: exit $rc: $(cat "$T/err")"
echo "$out" | grep -q "contacts:       mean 800.0, max 800" || bad "stack: not 800 contacts per step: $out"
echo "$out" | grep -q "not converged:  0" || bad "stack: unconverged solves: $out"
"$FRICON" simulate stack --steps 50 --every 50 --export "$T/l" --local --quiet >/dev/null 2>&1 ||
  bad "simulate stack --local"
[ -f "$T/v/stack-000100.vtk" ] || bad "no VTK frame 100"
head -1 "$T/v/stack-000100.vtk" | grep -q "# vtk DataFile" || bad "VTK header"
for f in "$T/g/stack-000050.hdf5" "$T/g/stack-000100.hdf5" "$T/l/stack-000050-local.hdf5"; do
  [ -f "$f" ] && [ -f "$f.sol" ] || { bad "missing $f or $f.sol"; continue; }
  j=$("$FRICON" solve "$f" --json)
  echo "$j" | grep -q '"nc": 800' || bad "solve $f: $j"
  echo "$j" | grep -q '"status": "converged"' || bad "solve $f: $j"
  if [ -n "$FCCHECK" ] && [ -f "$FCCHECK" ] && /usr/bin/python3 -c "import numpy, scipy, h5py" 2>/dev/null; then
    e=$(timeout 120 /usr/bin/python3 "$FCCHECK" "$f" "$f.sol")
    /usr/bin/python3 -c "import sys; sys.exit(0 if float('$e') <= 1.5e-8 else 1)" 2>/dev/null ||
      bad "fccheck $f: '$e'"
  fi
done
# box scenes (box-box contacts): a few steps each, the last exported (global
# and local) and solved again by `fricon solve` with as many contacts
for sc in "tower 27 300" "wall 60 420" "arch 17 72"; do
  set -- $sc
  out=$("$FRICON" simulate "$1" --count "$2" --steps 4 --every 4 --export "$T/b" --solver nsgs --quiet 2>"$T/err")
  rc=$?
  [ $rc = 0 ] || bad "simulate $1: exit $rc: $(cat "$T/err")"
  echo "$out" | grep -q "contacts:       mean $3.0, max $3\$" || bad "$1: not $3 contacts per step: $out"
  "$FRICON" simulate "$1" --count "$2" --steps 4 --every 4 --export "$T/b" --local --quiet >/dev/null 2>&1 ||
    bad "simulate $1 --local"
  for f in "$T/b/$1-000004.hdf5" "$T/b/$1-000004-local.hdf5"; do
    [ -f "$f" ] || { bad "missing $f"; continue; }
    j=$("$FRICON" solve "$f" --json)
    echo "$j" | grep -q "\"nc\": $3," || bad "solve $f: $j"
    echo "$j" | grep -q '"status": "converged"' || bad "solve $f: $j"
  done
done
"$FRICON" simulate nosuchscene >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "unknown scene" "$T/err" || bad "unknown scene: exit $rc: $(cat "$T/err")"
"$FRICON" simulate stack --steps -1 >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] || bad "--steps -1: exit $rc"
"$FRICON" simulate stack --solver nosuch >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] || bad "--solver nosuch: exit $rc"
# the scale benchmark's generator: bad arguments exit 2 with one line
SCALE=$(dirname "$0")/../bench/mbd_scale.sh
bash "$SCALE" --fricon "$FRICON" --mu >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "--mu needs a value" "$T/err" ||
  bad "mbd_scale --mu: exit $rc: $(cat "$T/err")"
bash "$SCALE" --fricon "$FRICON" --mu -1 --counts 30 --out "$T/scale" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q -- "--mu: '-1'" "$T/err" ||
  bad "mbd_scale --mu -1: exit $rc: $(cat "$T/err")"
# collections: the chute and the 2D scenes export problems (global and
# local, fc2d / gfc2d for the planar ones, with a guess) that solve; a scene
# above the memory limit is refused before it is built (exit 2, one line)
for sc in chute disks-wall hopper; do
  for form in "" --local; do
    "$FRICON" simulate $sc --count 60 --steps 20 --every 20 --solver nsgs --export "$T/c-$sc" $form --quiet >/dev/null 2>&1 ||
      bad "simulate $sc $form"
  done
  for f in "$T/c-$sc"/*.hdf5; do
    [ -f "$f" ] || { bad "$sc: nothing exported"; continue; }
    j=$("$FRICON" solve "$f" --json --tol 1e-6 --time-limit 30)
    echo "$j" | grep -q '"status": "converged"' && echo "$j" | grep -q '"warm": true' || bad "solve $f: $j"
    case $sc in chute) k='"kind": "g\{0,1\}fc3d"' ;; *) k='"kind": "g\{0,1\}fc2d"' ;; esac
    echo "$j" | grep -q "$k" || bad "kind of $f: $j"
  done
done
"$FRICON" simulate column --count 10000000 >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "MB estimated" "$T/err" || bad "column 10^7: exit $rc: $(cat "$T/err")"
"$FRICON" simulate pile --count 100000 --mem-limit 100 --steps 1 >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "memory limit of 100 MB" "$T/err" || bad "--mem-limit 100: exit $rc: $(cat "$T/err")"
"$FRICON" simulate pile --count 100 --mem-limit 100 --steps 1 >/dev/null 2>"$T/err" || bad "pile 100 under 100 MB: $(cat "$T/err")"
# joints: the mechanisms without contact run (their steps are solved by
# the simulator itself); with contacts, a solver that does not handle
# equalities stops the run with exit 2 and one line naming the joints;
# with one that does, the chain runs and exports problems with G, b
for sc in pendulum fourbar; do
  "$FRICON" simulate $sc --steps 200 --quiet >/dev/null 2>"$T/err" || bad "simulate $sc: $(cat "$T/err")"
done
"$FRICON" simulate chain --steps 100 --solver fpp --quiet >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 2 ] && grep -q "equality constraints (joints)" "$T/err" ||
  bad "chain with fpp: exit $rc: $(cat "$T/err")"
"$FRICON" simulate chain --steps 60 --every 60 --export "$T/j" --quiet >/dev/null 2>"$T/err"; rc=$?
if [ $rc = 2 ] && grep -q "does not handle equality constraints" "$T/err"; then
  echo "mbd_cli: no solver handles equalities yet: chain export not checked"
else
  [ $rc = 0 ] || [ $rc = 1 ] || bad "simulate chain: exit $rc: $(cat "$T/err")"
  f="$T/j/chain-000060.hdf5"
  j=$("$FRICON" info "$f" 2>&1) || bad "info $f: $j"
  echo "$j" | grep -q "equalities: 60" || bad "info $f: not 60 equality rows: $j"
fi
[ $fail = 0 ] && echo "mbd_cli: all passed"
exit $fail
