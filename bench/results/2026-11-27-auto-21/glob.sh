#!/bin/bash
F=/work/main/build-lead/fricon
out=/tmp/s21/probe/glob.csv
echo "file,nc,kflops,iters,status,cpu" > $out
for c in coll27 coll27b coll27n coll27c; do
  tail -n +2 /tmp/$c/manifest.csv | while IFS=, read f fam half seed step nc d form tol mu count; do
    [ "$half" = tuning ] && [ "$form" = global ] && [ "$d" = 3 ] && [ "$nc" -ge 500 ] || continue
    p=/tmp/$c/$f
    l=$( { /usr/bin/time -f "CPU %U %S" $F solve $p --solver ipm-mdp --cold --tol $tol --time-limit 6 --verbose --verbose --set cpu_clock=1 ; } 2>&1 )
    fl=$(echo "$l" | grep "LU of" | head -1 | sed 's/.*predicted \([^ ]*\) flops.*/\1/')
    it=$(echo "$l" | grep "^iterations:" | awk '{print $2}'); st=$(echo "$l" | grep "^status:" | awk '{print $2}')
    cpu=$(echo "$l" | grep "^CPU" | awk '{print $2+$3}')
    echo "$f,$nc,$fl,$it,$st,$cpu" >> $out
  done
done
