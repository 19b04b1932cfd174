#!/bin/bash
# sweeps to tol: 1 thread, 2 threads phases 1, 2 threads phases 2 (nsgs defaults)
FR=${FR:-/work/main/build-lead/fricon}; TOL=${TOL:-1e-4}; MAX=${MAX:-6000}
for f in "$@"; do
  line="$(basename $(dirname $f))/$(basename $f)"
  for t in "1 1" "2 1" "2 2"; do set -- $t
    j=$($FR solve "$f" --solver nsgs --tol $TOL --max-iter $MAX --threads $1 --set nsgs.phases=$2 $EXTRA --json 2>/dev/null)
    it=$(echo "$j" | grep -o '"iterations": *[0-9]*' | grep -o '[0-9]*$'); res=$(echo "$j" | grep -o '"residual": *[0-9.e+-]*' | grep -o '[0-9.e+-]*$')
    line="$line | T$1 P$2 $it $res"
  done
  echo "$line"
done
