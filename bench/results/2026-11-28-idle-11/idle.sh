#!/bin/bash
# the idle runs of the twenty-fifth session (after the merges)
set -u
cd /work/main
OUT=/tmp/s25/idle; mkdir -p $OUT
echo "start $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" > $OUT/log
bench/detect_ab.sh --a /tmp/s25/base/build/fricon --b /work/main/build-lead/fricon --rounds 10 > $OUT/detect-ab.txt 2>&1
echo "detect_ab done $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/log
bench/parallel.sh --build build-lead --out /tmp/s23/par --reuse > $OUT/parallel.out 2>&1; cp /tmp/s23/par/parallel.txt $OUT/parallel.txt
echo "parallel done $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/log
bench/threads.sh --fricon build-lead/fricon --reps 5 /tmp/s23/col30000/column-000002-local.hdf5 > $OUT/threads-column112768.txt 2>&1
bench/threads.sh --fricon build-lead/fricon --reps 5 /tmp/s23/pile4000/pile-000040-local.hdf5 > $OUT/threads-pile17k.txt 2>&1
echo "end $(date -u) load $(cut -d' ' -f1-3 /proc/loadavg)" >> $OUT/log
