#!/bin/sh
# sticksor.c with Anderson(5) on the sticking block (ACCEL 2), omega 1
for f in "$@"; do nice -n 10 /tmp/piles4-sticksor $f 1 6000 10 2 | grep -v "^  work"; done
