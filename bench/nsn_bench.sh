#!/bin/sh
# Run the nonsmooth Newton solvers on every shared problem (fc3d, fc2d,
# global) and print one markdown table row per (problem, solver):
# status, iterations, residual, seconds, peak resident memory (max RSS
# from /usr/bin/time -v).  usage: bench/nsn_bench.sh FRICON DATA_DIR [TIME_LIMIT] [SOLVERS...]
bin=${1:?fricon binary}; data=${2:?shared data dir}; tl=${3:-30}
shift 3 2>/dev/null
solvers=${*:-"nsn-ac nsn-jm nsn-fb nsn-nm nsn-hybrid"}
echo "| problem | nc | solver | status | iterations | residual | seconds | max RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|"
for f in "$data"/fc3d/* "$data"/fc2d/* "$data"/global/*; do
  for s in $solvers; do
    out=$( { /usr/bin/time -v timeout $((tl * 2 + 10)) "$bin" solve "$f" --solver "$s" --json \
             --time-limit "$tl" 2>/tmp/nsn_bench_time.$$ ; } )
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' /tmp/nsn_bench_time.$$)
    echo "$out" | python3 -c '
import json, sys
rss = float(sys.argv[1] or 0) / 1024
try:
    j = json.loads(sys.stdin.read())
except Exception:
    print("| %s | ? | %s | error | | | | %.1f |" % (sys.argv[2], sys.argv[3], rss)); sys.exit()
print("| %s | %d | %s | %s | %d | %.2e | %.3f | %.1f |" % (sys.argv[2], j["nc"], j["solver"],
      j["status"], j["iterations"], j["residual"], j["seconds"], rss))' "$rss" "$(basename "$f")" "$s"
  done
done
rm -f /tmp/nsn_bench_time.$$
