#!/bin/bash
# usage: admcmp.sh TOL LIMIT files...
TOL=$1; LIM=$2; shift 2
for f in "$@"; do for lin in ${LINS:-1 2}; do
 /usr/bin/time -f "%U" -o /tmp/s24/t.txt /work/main/build-lead/fricon solve $f --solver admm --tol $TOL --max-iter 100000 --time-limit $LIM --json --set admm.linear=$lin > /tmp/s24/o.json 2>/dev/null
 python3 -c "
import json,sys; d=json.load(open('/tmp/s24/o.json')); print('%-40s nc %6d lin $lin %-10s it %6d res %.2e s %7.3f cpu %s'%(sys.argv[1][-40:], d['nc'], d['status'], d['iterations'], d['residual'], d['seconds'], open('/tmp/s24/t.txt').read().strip().split()[-1]))" $f
done; done
