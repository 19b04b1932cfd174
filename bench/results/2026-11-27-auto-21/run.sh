#!/bin/bash
# per tuning local d=3 file: auto cold verbose; ipm-mdp cold; nsgs cold (6 s limit)
F=/work/main/build-lead/fricon
out=/tmp/s21/probe/out.csv
echo "file,family,nc,mu,tol,solver,status,iters,residual,seconds,cpu" > $out
for c in coll27 coll27b coll27n coll27c; do
  tail -n +2 /tmp/$c/manifest.csv | while IFS=, read f fam half seed step nc d form tol mu count; do
    [ "$half" = tuning ] && [ "$form" = local ] && [ "$d" = 3 ] || continue
    p=/tmp/$c/$f
    [ -f "$p" ] || continue
    for s in auto ipm-mdp nsgs nncg; do
      v=""; [ $s = auto ] && v="--verbose"
      res=$( { /usr/bin/time -f "CPU %U %S" nice -n 5 $F solve $p --solver $s --cold --tol $tol --time-limit 6 $v --json 2> /tmp/s21/probe/err.txt > /tmp/s21/probe/js.txt; } 2>&1 )
      [ $s = auto ] && cp /tmp/s21/probe/err.txt "/tmp/s21/probe/$(basename $p).auto.log"
      cpu=$(grep CPU /tmp/s21/probe/err.txt | awk '{print $2+$3}')
      /usr/bin/python3 -c "
import json,sys
j=json.load(open('/tmp/s21/probe/js.txt'))
print(','.join(map(str,['$f','$fam',$nc,'$mu','$tol','$s',j.get('status'),j.get('iterations'),j.get('residual'),j.get('seconds'),'$cpu'])))" >> $out
    done
  done
done
