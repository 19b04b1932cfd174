#!/bin/bash
# families with CPU limits: HALF, TAG (binary tag), SOLVERS, FORMS, STARTS, STICK, OUT (a directory)
# the collections are /tmp/coll27, /tmp/coll27b, /tmp/coll27n (tuning), /tmp/coll27m (masonry only)
HERE=$(cd "$(dirname "$0")" && pwd)
F=${F:-$HERE/../../../build/fricon}
B=$HERE/../../families.sh
mkdir -p "${OUT:-runs}" && cd "${OUT:-runs}" || exit 2
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
