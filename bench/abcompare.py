#!/usr/bin/env python3
# Usage: bench/abcompare.py --a OLD/fricon --b NEW/fricon [--reps 5] [--args "--tol 1e-4"] FILE...
# Runs "fricon solve --json" with each binary in turn, REPS times per file; prints
# each file's median solve seconds, B/A, statuses and residuals, and the geometric mean.
"""A/B: run two fricon binaries alternately on files, median solve seconds."""
import json, subprocess, sys, statistics, argparse
ap = argparse.ArgumentParser()
ap.add_argument('--a', required=True); ap.add_argument('--b', required=True)
ap.add_argument('--reps', type=int, default=3); ap.add_argument('--args', default='')
ap.add_argument('files', nargs='+')
o = ap.parse_args()
def run(binary, f):
    p = subprocess.run([binary, 'solve', f, '--json'] + o.args.split(), capture_output=True, text=True, timeout=600)
    try: return json.loads(p.stdout)
    except Exception: return {'status': 'crash', 'seconds': float('nan'), 'residual': float('nan'), 'iterations': 0}
ratios = []
print(f"{'problem':50s} {'nc':>6s} {'A s':>9s} {'B s':>9s} {'B/A':>6s}  A status/B status")
for f in o.files:
    ra, rb = [], []
    for k in range(o.reps):
        ra.append(run(o.a, f)); rb.append(run(o.b, f))
    ta = statistics.median(r['seconds'] for r in ra); tb = statistics.median(r['seconds'] for r in rb)
    ratio = tb / ta if ta > 0 else float('nan'); ratios.append(ratio)
    print(f"{f.split('/')[-1][:50]:50s} {ra[0].get('nc',0):6d} {ta:9.4g} {tb:9.4g} {ratio:6.2f}  {ra[0]['status']}/{rb[0]['status']} {ra[0]['residual']:.1e}/{rb[0]['residual']:.1e}", flush=True)
import math
g = math.exp(sum(math.log(r) for r in ratios if r > 0) / len(ratios))
print(f"geometric mean B/A: {g:.3f}")
