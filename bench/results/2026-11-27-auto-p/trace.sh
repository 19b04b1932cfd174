#!/bin/bash
# trace.sh BIN OUTDIR : auto -v -v on every file of files.txt, CPU seconds
BIN=$1; OUT=$2; mkdir -p $OUT
while read f; do
  b=$(basename $f .hdf5)
  FRICON_AUTO_NOCUT=${NOCUT:-} /usr/bin/time -f "CPU %U" $BIN solve $f --tol 1e-4 --time-limit ${LIM:-8} --verbose --verbose 2>&1 | grep -E "auto: nncg sweep|nncg sweep 1 error|^  stage|^status|^iterations|^CPU" > $OUT/$b.txt
done < files.txt
