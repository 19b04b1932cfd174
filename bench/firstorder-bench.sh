#!/bin/sh
# Run every first-order solver on every shared fc3d problem, serially, with
# the CLI and a 60 s cap (CAP=seconds to change it); print a markdown
# table (problem, nc, solver, status, iterations, residual, seconds).
# Results of a run: bench/firstorder-results.md.
# usage: [CAP=60] sh bench/firstorder-bench.sh [FRICON_BIN] [DATA_DIR] [SOLVERS...]
BIN=${1:-build/fricon}
DATA=${2:-../shared/data/fc3d}
shift 2 2>/dev/null
SOLVERS=${*:-"fpp eg vi-fpp vi-eg hp dsfp tfp pfp aclm apgd apgd-ccp prox nsgs-v"}
CAP=${CAP:-60}
echo "| problem | nc | solver | status | iterations | residual | seconds |"
echo "|---|---|---|---|---|---|---|"
for f in "$DATA"/*; do
  for s in $SOLVERS; do
    j=$(timeout $((CAP + 30)) "$BIN" solve "$f" --solver "$s" --json --time-limit "$CAP" 2>/dev/null)
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
