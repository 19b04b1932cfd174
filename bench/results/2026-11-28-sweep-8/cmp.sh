#!/bin/bash
# usage: cmp.sh NEWBIN file solver iters threads [extra...]
B=$1; f=$2; s=$3; n=$4; t=$5; shift 5
M=${MAIN:?main binary}
o=${OUT:-/tmp}/$(basename $f)-$s-$n-$t
$M solve $f --solver $s --max-iter $n --tol 1e-300 --threads $t --output $o.main.sol "$@" >/dev/null 2>&1
$B solve $f --solver $s --max-iter $n --tol 1e-300 --threads $t --output $o.new.sol "$@" >/dev/null 2>&1
if cmp -s $o.main.sol $o.new.sol; then echo "SAME $f $s $n $t $*"; else echo "DIFF $f $s $n $t $*"; fi
