#!/bin/sh
# portfolio test: nncg 2 threads warm vs two concurrent 1-thread runs (warm, cold)
B=/work/main/build-lead/fricon
for f in "$@"; do
  a=$($B solve $f --solver nncg --tol 1e-4 --time-limit 5 --set threads=2 --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], "%.3f"%d["seconds"], "%.2e"%d["residual"], d["iterations"])')
  $B solve $f --solver nncg --tol 1e-4 --time-limit 5 --set threads=1 --json > /tmp/s33/pw.json &
  $B solve $f --solver nncg --tol 1e-4 --time-limit 5 --set threads=1 --cold --json > /tmp/s33/pc.json &
  wait
  b=$(/usr/bin/python3 -c '
import json
w=json.load(open("/tmp/s33/pw.json")); c=json.load(open("/tmp/s33/pc.json"))
print(w["status"], "%.3f"%w["seconds"], "%.2e"%w["residual"], "|", c["status"], "%.3f"%c["seconds"], "%.2e"%c["residual"])')
  echo "$f | 2T warm: $a | 1T warm, 1T cold: $b"
done
