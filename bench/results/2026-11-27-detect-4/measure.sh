#!/bin/bash
# REF: main at 7176112 built in /tmp/detect4-ref (git archive 7176112 | tar -x; cmake Release); NEW: a copy of this branch's build dir (fricon, bench_detect)
# detection 1 vs 2 threads: bench_detect (threads.sh --detect), then
# `fricon simulate pile --count 10000` per-step detection of main's binary
# (7176112) and this branch's, threads 1 and 2 alternated, REPS rounds
NEW=${1:?binary dir}; REPS=${2:-5}
if [ -z "${OMP_WAIT_POLICY:-}" ] && [ -z "${GOMP_SPINCOUNT:-}" ]; then
  if awk -v c="$(nproc)" '{ exit !($1 < c) }' /proc/loadavg; then export GOMP_SPINCOUNT=3000; else export OMP_WAIT_POLICY=passive; fi
fi
export OPENBLAS_NUM_THREADS=1
bash /work/wt-detect4/bench/threads.sh --detect --fricon $NEW/fricon
echo "# simulate pile --count 10000 --steps 5 (nsgs, 1 sweep, file order), $REPS rounds; $(date -u +%H:%M:%SZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in $(seq 1 $REPS); do
  for b in ref new; do
    bin=/tmp/detect4-ref/build/fricon; [ $b = new ] && bin=$NEW/fricon
    order="1 2"; [ $((k % 2)) = 0 ] && order="2 1"
    for t in $order; do
      out=$( { /usr/bin/time -f "cpu %U %S" $bin simulate pile --count 10000 --steps 5 --solver nsgs --max-iter 1 --set nsgs.order=1 --threads $t --quiet; } 2>&1 )
      det=$(echo "$out" | sed -n 's/^detection: *\([0-9.e+-]*\) s per step.*/\1/p')
      con=$(echo "$out" | sed -n 's/^contacts: *//p')
      cpu=$(echo "$out" | sed -n 's/^cpu //p')
      echo "$b threads $t detection $det s/step; run cpu user/sys $cpu; contacts $con"
    done
  done
done
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
