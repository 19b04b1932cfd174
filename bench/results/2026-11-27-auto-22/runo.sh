#!/bin/bash
# validation half: auto (this session's binary) and the oracle's solvers in the same runs
F=${F:-/tmp/s22/fricon-new}
B=/work/main/bench/families.sh
cd /tmp/s22/valo
for fs in "local cold" "global cold" "local warm" "global warm"; do
  set -- $fs; form=$1; start=$2
  tag=validation-$form-$start
  for c in coll27 coll27b; do
    nice -n 5 $B --cpu-limit --fricon $F --half validation --form $form --$start --solvers auto,nsgs,nncg,prox,ipm-mdp --time-limit 6 /tmp/$c $tag-$c > $tag-$c.log 2>&1
  done
  nice -n 5 $B --cpu-limit --fricon $F --half validation --form $form --$start --solvers stick --time-limit 6 /tmp/coll27m $tag-stick > $tag-stick.log 2>&1
  { head -1 $tag-coll27/results.csv; tail -q -n +2 $tag-coll27/results.csv $tag-coll27b/results.csv $tag-stick/results.csv; } > $tag.csv
  echo "$(date +%T) done $tag"
done
