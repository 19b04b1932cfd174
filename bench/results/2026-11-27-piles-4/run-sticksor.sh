#!/bin/sh
# sticksor.c (built as /tmp/piles4-sticksor, see README in this folder) on pile steps
for f in "$@"; do
  for w in 1 1.3 1.6 1.9 -1; do nice -n 10 /tmp/piles4-sticksor $f $w 3000 10 | grep -v "^  work"; done
done
