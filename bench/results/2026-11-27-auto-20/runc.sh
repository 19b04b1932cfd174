#!/bin/bash
# families with CPU limits: HALF, TAG (binary tag), SOLVERS, FORMS, STARTS
F=${F:-/tmp/s20/fricon-new}
B=/work/wt-auto20/bench/families.sh
cd /tmp/s20/c
for form in ${FORMS:-global local}; do
 for start in ${STARTS:-warm cold}; do
  tag=$HALF-$form-$start-$TAG
  colls="coll27 coll27b"; [ $HALF = tuning ] && colls="$colls coll27n"
  for c in $colls; do
    nice -n 5 $B --cpu-limit --fricon $F --half $HALF --form $form --$start --solvers $SOLVERS --time-limit 6 /tmp/$c $tag-$c > $tag-$c.log 2>&1
  done
  [ -n "$STICK" ] && nice -n 5 $B --cpu-limit --fricon $F --half $HALF --form $form --$start --solvers stick --time-limit 6 /tmp/coll27m $tag-stick > $tag-stick.log 2>&1
  echo "$(date +%T) done $tag"
 done
done
