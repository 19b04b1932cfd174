#!/bin/sh
# Pile steps of the tuning seeds (1: this session's export with --time-limit
# 3, 3: the fourth session's /tmp/bb-pile3), from the simulator's warm start,
# tol 1e-4, at most 1500 sweeps, no time limit: nncg against the Newton-Krylov
# steps (newton 20, gap 20, krylov 10) with the block-diagonal, body-block
# preconditioner, and the regularised system; variants interleaved per step.
# usage: sh run-steps.sh OUT "files"   (FRICON: the binary)
out=$1; files=$2
bin=${FRICON:-build/fricon}
nk="--set nncg.newton=20 --set nncg.newton_gap=20 --set nncg.krylov=10"
for f in $files; do
  for v in "" "$nk" "$nk --set nncg.newton_body=1" "$nk --set nncg.newton_reg=0.1" \
           "$nk --set nncg.newton_body=1 --set nncg.newton_reg=0.1"; do
    log=$(mktemp)
    # shellcheck disable=SC2086
    /usr/bin/time -f "cpu %U s" nice -n 10 "$bin" solve "$f" --solver nncg --tol 1e-4 --max-iter 1500 \
        --time-limit 0 --verbose $v > "$log" 2>&1
    echo "$f [$v] load=$(cut -d' ' -f1 /proc/loadavg) $(grep -E '^nncg:|^cpu' "$log" | tr '\n' ' ')" >> "$out"
    rm -f "$log"
  done
done
