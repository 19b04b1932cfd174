#!/bin/bash
F=/work/main/build-lead/fricon
out=/tmp/s21/probe/lu.csv
echo "file,nc,nnzW,lu_kind,lu_flops,chol_newton_sweeps,t1" > $out
for c in coll27 coll27b coll27n coll27c; do
  tail -n +2 /tmp/$c/manifest.csv | while IFS=, read f fam half seed step nc d form tol mu count; do
    [ "$half" = tuning ] && [ "$form" = local ] && [ "$d" = 3 ] || continue
    p=/tmp/$c/$f
    l=$($F solve $p --solver ipm-mdp --cold --tol $tol --verbose --verbose --max-iter 1 2>&1 | grep "LU of" | head -1)
    kind=$(echo "$l" | awk '{print $2}'); fl=$(echo "$l" | sed 's/.*predicted \([^ ]*\) flops.*/\1/')
    nw=$(FC_PROBE=1 $F solve $p --solver auto --cold --tol 1e-12 --max-iter 1 --verbose --verbose 2>&1 | grep PROBE | awk "{print \$3}")
    nnz=$($F info $p 2>/dev/null | grep -i "nnz\|entries" | head -1 | tr -dc '0-9 ' | awk '{print $1}')
    echo "$f,$nc,$nnz,$kind,$fl,$nw" >> $out
  done
done
