#!/bin/sh
# Granular pile runs of issue 33 (docs/granular-piles.md): the pile scene
# with each solver and seed in turn, one summary line per run (with the
# process's CPU seconds, the machine being shared) appended to OUT.
# usage: sh bench/piles.sh OUT COUNT STEPS "solvers" "seeds" [simulate args]
# e.g.   sh bench/piles.sh out.txt 2000 70 "nncg auto" "1 2 3" --time-limit 5
out=$1; count=$2; steps=$3; solvers=$4; seeds=$5; shift 5
bin=${FRICON:-build/fricon}
for seed in $seeds; do
  for s in $solvers; do
    log=$(mktemp)
    /usr/bin/time -f "cpu %U s" nice -n 5 "$bin" simulate pile --count "$count" --seed "$seed" \
        --steps "$steps" --tol 1e-4 --solver "$s" "$@" > "$log" 2>&1
    echo "count=$count seed=$seed steps=$steps solver=$s args='$*' load=$(cut -d' ' -f1 /proc/loadavg)" \
         "$(grep -E 'contacts:|per step:|not converged:|^cpu' "$log" | tr -s ' ' | tr '\n' ' ')" >> "$out"
    rm -f "$log"
  done
done
