#!/bin/sh
# Run every first-order solver on every shared fc3d problem, serially, with
# the CLI and a 60 s cap; print a markdown table (problem, nc, solver,
# status, iterations, residual, seconds).
# usage: sh bench/firstorder-bench.sh [FRICON_BIN] [DATA_DIR] [SOLVERS...]
BIN=${1:-build/fricon}
DATA=${2:-../shared/data/fc3d}
shift 2 2>/dev/null
SOLVERS=${*:-"fpp eg vi-fpp vi-eg hp dsfp tfp pfp aclm apgd apgd-ccp prox nsgs-v"}
echo "| problem | nc | solver | status | iterations | residual | seconds |"
echo "|---|---|---|---|---|---|---|"
for f in "$DATA"/*; do
  for s in $SOLVERS; do
    j=$(timeout 90 "$BIN" solve "$f" --solver "$s" --json --time-limit 60 2>/dev/null)
    if [ -z "$j" ]; then
      echo "| $(basename "$f") | ? | $s | error | - | - | - |"; continue
    fi
    echo "$j" | /usr/bin/python3 -c '
import json, sys, os
d = json.load(sys.stdin)
print("| %s | %d | %s | %s | %d | %.2e | %.3g |" % (os.path.basename(d["problem"]), d["nc"],
      d["solver"], d["status"], d["iterations"], d["residual"], d["seconds"]))'
  done
done
