#!/bin/bash
# quick.sh "ENV..." : auto on the tuning masonry, local cold and warm, CPU seconds
for start in cold warm; do for f in /tmp/coll27*/{tower,wall,arch}/tuning/*-local.hdf5; do
  c=""; [ $start = cold ] && c=--cold
  echo "$start $(basename $f) $(env $1 ${FB:-/tmp/s22/fricon-x2} solve $f --solver auto --tol 1e-8 --time-limit 6 $c --json --set cpu_clock=1 | /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(d['status'][:5], d['iterations'], '%.4f'%d['seconds'])")"
done; done
