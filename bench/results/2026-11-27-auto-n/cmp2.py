#!/usr/bin/python3
# cmp2.py BEFORE_DIR AFTER_DIR : auto before/after on every problem of the runs/*/results.csv
import csv, sys, math, glob, os
def load(d):
    out = {}
    for f in glob.glob(os.path.join(d, 'runs', '*', 'results.csv')):
        for r in csv.DictReader(open(f)):
            if r['solver'] == 'auto': out[r['problem']] = r
    return out
b, a = load(sys.argv[1]), load(sys.argv[2])
n = same = 0; cb = ca = 0; tb = ta = 0.0
for p in sorted(b):
    if p not in a: continue
    n += 1; rb, ra = b[p], a[p]
    okb, oka = rb['status'] == 'converged', ra['status'] == 'converged'
    cb += okb; ca += oka
    tb += float(rb['seconds']) if okb else 6.0; ta += float(ra['seconds']) if oka else 6.0
    if (rb['status'], rb['iterations']) == (ra['status'], ra['iterations']): same += 1; continue
    print('%-42s %-10s %6s %8.3f  ->  %-10s %6s %8.3f' % (p, rb['status'], rb['iterations'], float(rb['seconds']), ra['status'], ra['iterations'], float(ra['seconds'])))
print('%d problems, %d same status and iterations; converged %d -> %d; CPU s (a failure as 6) %.2f -> %.2f' % (n, same, cb, ca, tb, ta))
