#!/bin/bash
FR=/work/main/build-lead/fricon
for f in "$@"; do
  line="$(basename $f)"
  for t in "1 1" "2 1" "2 2"; do set -- $t
    j=$($FR solve "$f" --solver nncg --tol 1e-4 --max-iter 6000 --threads $1 --set nncg.phases=$2 --json 2>/dev/null)
    it=$(echo "$j" | grep -o '"iterations": *[0-9]*' | grep -o '[0-9]*$'); res=$(echo "$j" | grep -o '"residual": *[0-9.e+-]*' | grep -o '[0-9.e+-]*$'); sec=$(echo "$j" | grep -o '"seconds": *[0-9.e+-]*' | grep -o '[0-9.e+-]*$')
    line="$line | T$1 P$2 $it $res $sec"
  done
  echo "$line"
done
