#!/bin/sh
# main's fricon against det9's, `fricon simulate pile --count 10000 --steps 5
# --solver nsgs --max-iter 1`, threads 1 and 2, alternated ROUNDS times:
# the per-step detection and assembly it prints, wall, user, sys, minor faults.
# usage: ab_simulate.sh MAIN_FRICON DET9_FRICON [ROUNDS]
A=$1; B=$2; R=${3:-3}
. "$(dirname "$0")/../../wait_rule.sh"; fricon_wait_rule
echo "# $(date -u +%H:%MZ) load $(cut -d' ' -f1-3 /proc/loadavg) OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-}"
for r in $(seq "$R"); do
  for t in 1 2; do
    for v in main det9; do
      f=$A; [ $v = det9 ] && f=$B
      out=$(/usr/bin/time -f 'time %e %U %S %R' "$f" simulate pile --count 10000 --steps 5 --solver nsgs \
            --max-iter 1 --threads $t 2>&1)
      det=$(echo "$out" | sed -n 's/^detection: *\([0-9.e+-]*\) s per step.*assembly \([0-9.e+-]*\) s$/\1 \2/p')
      tm=$(echo "$out" | sed -n 's/^time //p')
      echo "round $r threads $t $v detect/assembly $det wall/user/sys/minflt $tm load $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
