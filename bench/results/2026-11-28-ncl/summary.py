#!/usr/bin/env python3
"""The tables of docs/granular-piles.md's 2026-11-28 ncl section from the raw files here."""
import re, glob, os
def sweeps(path, key=None):
    out = {}
    for l in open(path):
        if key and key not in l: continue
        m = re.search(r'nncg: ([a-z-]+) after (\d+) sweeps, error ([\d.e-]+)', l)
        step = l.split()[0].split('-')[1].split('.')[0].lstrip('0')
        out[step] = (int(m[2]), float(m[3]), m[1])
    return out
def cell(x):
    return '%d' % x[0] if x[2] == 'converged' else '%d (%.2e)' % (x[0], x[1])
a = sweeps('sweeps-p1.txt', 'threads=1'); b = sweeps('sweeps-p1.txt', 'par=1'); c = sweeps('sweeps-p1-par2.txt')
d = sweeps('sweeps-p1.txt', 'par=3'); e = sweeps('sweeps-p1-par1-ownchol.txt')
print('| seed 1 step | 1 thread | 2 threads, par 1 | par 1, own Cholesky | par 2 | par 3 |')
print('|---|---:|---:|---:|---:|---:|')
for s in sorted(a, key=int):
    print('| %s | %s | %s | %s | %s | %s |' % (s, cell(a[s]), cell(b[s]), cell(e[s]), cell(c[s]), cell(d[s])))
print()
# p2 trajectories: sweeps to 1e-4 and the first measurement at or below 2e-4, 1.5e-4
def traj(path):
    errs = []
    fin = None
    for l in open(path):
        m = re.search(r'nncg sweep (\d+) error ([\d.e+-]+)', l)
        if m: errs.append((int(m[1]), float(m[2])))
        m = re.search(r'nncg: ([a-z-]+) after (\d+) sweeps, error ([\d.e-]+)', l)
        if m: fin = (int(m[2]), float(m[3]), m[1])
    first = lambda t: next((s for s, x in errs if x <= t), None)
    return fin, first(2e-4), first(1.5e-4)
print('| seed 2 step | 1 thread: to 1e-4 | to 2e-4 | to 1.5e-4 | 2 threads: to 1e-4 | to 2e-4 | to 1.5e-4 |')
print('|---|---:|---:|---:|---:|---:|---:|')
for f in sorted(glob.glob('traj-p2/*-t1.log')):
    g = f.replace('-t1.log', '-t2.log')
    if not os.path.exists(g): continue
    r1, r2 = traj(f), traj(g)
    if not r1[0] or not r2[0]: continue
    s = os.path.basename(f).split('-')[1].lstrip('0')
    fmt = lambda v: '-' if v is None else str(v)
    print('| %s | %s | %s | %s | %s | %s | %s |' % (s, cell(r1[0]), fmt(r1[1]), fmt(r1[2]), cell(r2[0]), fmt(r2[1]), fmt(r2[2])))
