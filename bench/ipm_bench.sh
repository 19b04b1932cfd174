#!/bin/sh
# ipm, gipm, admm, gadmm on the shared problems: one markdown table row per
# (problem, solver) with status, iterations, residual (the library's), the
# residual recomputed by shared/tools/fccheck.py from the written solution,
# and seconds.  Local solvers on fc3d, fc2d and rolling; global solvers on
# global and rolling (a local problem given to gipm / gadmm runs their
# local counterpart; a global one given to ipm / admm goes through
# fc_solve's reduction W = H' M^-1 H).
# usage: bench/ipm_bench.sh FRICON DATA_DIR [TIME_LIMIT] [MAX_ITER]
bin=${1:?fricon binary}; data=${2:?shared data dir}; tl=${3:-30}; mi=${4:-20000}
check=${FCCHECK:-$data/../tools/fccheck.py}
py=${PYTHON:-/usr/bin/python3}
sol=/tmp/ipm_bench_sol.$$
echo "| problem | nc | solver | status | iterations | residual | fccheck | seconds |"
echo "|---|---|---|---|---|---|---|---|"
run() { # file solver
  out=$(timeout $((tl * 2 + 10)) "$bin" solve "$1" --solver "$2" --json --time-limit "$tl" \
        --max-iter "$mi" --output "$sol" 2>/dev/null)
  # fccheck.py implements d = 2, 3 only (its cone ignores mu_r)
  case "$1" in */rolling/*) chk="n/a (d=5)" ;;
    *) chk=$("$py" "$check" "$1" "$sol" 2>/dev/null | tail -1) ;; esac
  echo "$out" | "$py" -c '
import json, sys
try:
    j = json.loads(sys.stdin.read())
except Exception:
    print("| %s | ? | %s | error | | | | |" % (sys.argv[1], sys.argv[2])); sys.exit()
print("| %s | %d | %s | %s | %d | %.2e | %s | %.3f |" % (sys.argv[1], j["nc"], j["solver"],
      j["status"], j["iterations"], j["residual"], sys.argv[3] or "?", j["seconds"]))' \
      "$(basename "$1")" "$2" "$chk"
  rm -f "$sol"
}
for f in "$data"/fc3d/* "$data"/fc2d/*; do
  for s in ipm admm; do run "$f" $s; done
done
for f in "$data"/global/*; do
  for s in gipm gadmm; do run "$f" $s; done
done
for f in "$data"/rolling/*; do
  for s in admm gadmm; do run "$f" $s; done
done
