#!/bin/sh
# sticksor.c with nncg's conjugate step (ACCEL 1), omega on the sticking contacts
for f in "$@"; do
  for w in 1 1.2 1.3 1.4; do nice -n 10 /tmp/piles4-sticksor $f $w 6000 10 1 | grep -v "^  work"; done
done
