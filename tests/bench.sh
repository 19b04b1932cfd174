#!/bin/bash
# fricon bench as a campaign that never stops: normal rows, and a crash, an
# out-of-memory (a real one, under a tiny --mem-limit) and a hang each as one
# failure row while the other solver's runs go on; summary and profiles written.
# usage: bench.sh FRICON EXAMPLES [--asan]   (--asan: no RLIMIT_AS sub-test,
# AddressSanitizer reserves terabytes of address space)
set -u
BIN=$1 EX=$2 ASAN=${3:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# row DIR PROBLEM SOLVER -> the status column of that row
row() { awk -F, -v p="$2" -v s="$3" '$1 == p && $5 == s { print $6 }' "$1/results.csv"; }

"$BIN" bench --solvers nsgs,ipm --time-limit 5 --out "$TMP/a" "$EX/Rover1039.dat" \
  "$EX/Capsules-i122-1617.dat" >"$TMP/a.log" 2>&1 || bad "normal campaign exit $?"
[ "$(row "$TMP/a" Rover1039.dat nsgs)" = converged ] && ok || bad "nsgs on Rover1039: $(row "$TMP/a" Rover1039.dat nsgs)"
[ "$(row "$TMP/a" Capsules-i122-1617.dat ipm)" = converged ] && ok || bad "ipm on Capsules"
[ "$(wc -l <"$TMP/a/results.csv")" -eq 5 ] && ok || bad "4 rows expected"
for f in summary.md profile-time.svg profile-time.png; do [ -s "$TMP/a/$f" ] && ok || bad "no $f"; done
# the residual column is the recomputed measure: below the tolerance when converged
awk -F, 'NR > 1 && $6 == "converged" && !($8 <= 1e-8) { exit 1 }' "$TMP/a/results.csv" && ok || bad "residuals"

FRICON_BENCH_TEST_FAULT=crash:nsgs "$BIN" bench --solvers nsgs,ipm --out "$TMP/c" "$EX/Rover1039.dat" >"$TMP/c.log" 2>&1
[ "$(row "$TMP/c" Rover1039.dat nsgs)" = crash ] && ok || bad "crash row: $(row "$TMP/c" Rover1039.dat nsgs)"
[ "$(row "$TMP/c" Rover1039.dat ipm)" = converged ] && ok || bad "campaign went on after the crash"

FRICON_BENCH_TEST_FAULT=hang:nsgs "$BIN" bench --solvers nsgs,ipm --time-limit 0.5 --out "$TMP/h" "$EX/Rover1039.dat" >"$TMP/h.log" 2>&1
[ "$(row "$TMP/h" Rover1039.dat nsgs)" = timeout ] && ok || bad "hang row: $(row "$TMP/h" Rover1039.dat nsgs)"
[ "$(row "$TMP/h" Rover1039.dat ipm)" = converged ] && ok || bad "campaign went on after the hang"

if [ "$ASAN" != --asan ]; then
  "$BIN" bench --solvers nsgs,ipm --mem-limit 8 --out "$TMP/m" "$EX/Capsules-i122-1617.dat" >"$TMP/m.log" 2>&1
  [ "$(row "$TMP/m" Capsules-i122-1617.dat nsgs)" = oom ] && ok || bad "oom row: $(row "$TMP/m" Capsules-i122-1617.dat nsgs)"
  [ -n "$(row "$TMP/m" Capsules-i122-1617.dat ipm)" ] && ok || bad "campaign went on after the oom"
  FRICON_BENCH_TEST_FAULT=alloc:nsgs "$BIN" bench --solvers nsgs,ipm --mem-limit 256 --out "$TMP/g" "$EX/Rover1039.dat" >"$TMP/g.log" 2>&1
  [ "$(row "$TMP/g" Rover1039.dat nsgs)" = oom ] && ok || bad "allocation past the limit: $(row "$TMP/g" Rover1039.dat nsgs)"
  [ "$(row "$TMP/g" Rover1039.dat ipm)" = converged ] && ok || bad "campaign went on after the allocation"
fi
# --repeat: the same converged rows (a short solve kept at its fastest run); a bad count refused
"$BIN" bench --solvers nsgs,ipm --repeat 3 --cpu --time-limit 5 --out "$TMP/r" "$EX/Rover1039.dat" >"$TMP/r.log" 2>&1 || bad "repeat campaign exit $?"
[ "$(row "$TMP/r" Rover1039.dat nsgs)" = converged ] && [ "$(row "$TMP/r" Rover1039.dat ipm)" = converged ] && ok || bad "repeat rows"
grep -q "repeat 3" "$TMP/r/summary.md" && grep -q "CPU time" "$TMP/r/summary.md" && ok || bad "summary does not say repeat 3, CPU time"
"$BIN" bench --repeat 0 --out "$TMP/r0" "$EX/Rover1039.dat" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok || bad "--repeat 0: exit $rc, expected 2"
"$BIN" bench --out "$TMP/x" "$TMP/nonexistent.dat" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok || bad "missing input: exit $rc, expected 2"
echo "bench: $pass passed, $fail failed"
[ $fail -eq 0 ]
