#!/bin/bash
# Sweeps to tolerance: nsgs's defaults (Anderson on), warm from the file's
# guess, 1 thread against 2 threads with nsgs.renumber 2 (off) and 1 (on).
F=${FRICON:-build/fricon}
run() { "$F" solve "$1" --solver nsgs --tol "$2" --max-iter "$3" --threads "$4" --set nsgs.renumber="$5" --json 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("status"), d.get("iterations"), d.get("residual"), d.get("seconds"))'; }
for spec in "/tmp/s23/pile4000/pile-000040-local.hdf5 1e-3 6000" "/tmp/s23/pile4000/pile-000040-local.hdf5 5e-4 6000" \
            "/tmp/s23/col30000/column-000002-local.hdf5 3e-3 3000"; do
  set -- $spec
  echo "# $(date -u +%H:%M) load $(cut -d' ' -f1-3 /proc/loadavg) $1 tol $2"
  echo "threads 1: $(run $1 $2 $3 1 0)"
  echo "threads 2 renumber 2: $(run $1 $2 $3 2 2)"
  echo "threads 2 renumber 1: $(run $1 $2 $3 2 1)"
done
