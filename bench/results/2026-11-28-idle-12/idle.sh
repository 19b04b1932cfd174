#!/bin/bash
# the idle runs of the twenty-sixth session (after the merges)
set -u
cd /work/main
OUT=/tmp/s26/idle; mkdir -p $OUT
echo "start $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" > $OUT/log
bench/parallel.sh --build build-lead --out /tmp/s23/par --reuse > $OUT/parallel.out 2>&1; cp /tmp/s23/par/parallel.txt $OUT/parallel.txt
echo "parallel done $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/log
bench/threads.sh --fricon build-lead/fricon --reps 5 /tmp/s23/col30000/column-000002-local.hdf5 > $OUT/threads-column112768-1.txt 2>&1
bench/threads.sh --fricon build-lead/fricon --reps 5 /tmp/s23/pile4000/pile-000040-local.hdf5 > $OUT/threads-pile17k.txt 2>&1
bench/threads.sh --fricon build-lead/fricon --reps 5 /tmp/s23/col30000/column-000002-local.hdf5 > $OUT/threads-column112768-2.txt 2>&1
echo "threads done $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/log
bash bench/million.sh --fricon build-lead/fricon --out /tmp/s26/million --reuse --solvers "nsgs" --threads "2 1" > $OUT/million.log 2>&1; cp /tmp/s26/million/summary.txt $OUT/million-summary.txt
echo "end $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/log
