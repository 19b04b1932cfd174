#!/bin/bash
# usage: same_as_main.sh [NEW_FRICON [MAIN_FRICON]]: 10 scenes, 12 steps, exported steps 4, 8, 12 of main (MAIN, default /tmp/detect5-ref: main at ffcf887) against NEW at 1 and 2 threads, compared dataset by dataset (detect-4/h5same.py) and the .sol files byte by byte
# compare exported step problems of the reference and the new build (1 and 2 threads)
NEW=${1:-/work/wt-detect5/build/fricon}
REF=${2:-/tmp/detect5-ref/build/fricon}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/d5cmp && mkdir -p /tmp/d5cmp && cd /tmp/d5cmp
cp "$HERE/../2026-11-27-detect-4/h5same.py" .
for sc in "pile --count 3000" "column --count 1500" "chute --count 800" "hopper --count 800" "tower --count 60" "wall --count 100" "arch" "disks-wall --count 500" "stack" "incline"; do
  name=$(echo $sc | cut -d' ' -f1)
  nice $REF simulate $sc --steps 12 --every 4 --solver nsgs --max-iter 100 --threads 1 --export ref-$name --quiet > ref-$name.txt 2>&1
  for t in 1 2; do
    nice $NEW simulate $sc --steps 12 --every 4 --solver nsgs --max-iter 100 --threads $t --set nsgs.order=1 --export new$t-$name --quiet > new$t-$name.txt 2>&1
  done
  res="$name:"
  for f in ref-$name/*.hdf5; do
    b=$(basename $f)
    res="$res $b $(/usr/bin/python3 h5same.py $f new1-$name/$b | cut -c1-40)/$(/usr/bin/python3 h5same.py $f new2-$name/$b | cut -c1-40)"
    cmp -s $f.sol new1-$name/$b.sol || res="$res sol1-DIFF"
    cmp -s $f.sol new2-$name/$b.sol || res="$res sol2-DIFF"
  done
  echo "$res"
done
