#!/usr/bin/env python3
"""Summary of bench_detect's timelines (a build with -DFC_DTRACE:
bench/detect_trace.sh): per 2-thread step, the intervals between each
thread's consecutive marks (any version of the marks), then for the
current marks each thread's work between the synchronisation points,
each barrier's wait (first arrival to last) and release lag (last
arrival to a thread's leaving), the threads' entries into the region;
medians, minima and maxima over the steps, in microseconds.
usage: detect_trace.py FILE"""
import re
import statistics
import sys

# (name, arrive mark, leave mark) of each barrier of the detection
BARRIERS = [("b1", "sizes", "b1"), ("b2", "cells", "b2"), ("b3", "hits", "b3"), ("b4", "chunks", "b4")]
# (name, from mark, to mark) of each thread's work
WORK = [("first pass", "enter", "sizes"), ("classify+cells", "b1", "cells"),
        ("starts+place+hits", "b2", "hits"), ("chunks", "b3", "chunks"), ("copy", "grow", "copy")]

steps = {}
for line in open(sys.argv[1]):
    m = re.match(r"step (\d+) threads 2 wall ([\d.]+) t(\d) (.*)", line)
    if not m:
        continue
    k, wall, t = int(m.group(1)), float(m.group(2)), int(m.group(3))
    marks = dict((a, float(b)) for a, b in (x.split("@") for x in m.group(4).split()))
    steps.setdefault(k, {"wall": wall})[t] = marks

rows = {}
def add(key, v):
    rows.setdefault(key, []).append(v)

seq = {}
for k, st in sorted(steps.items()):
    for t in (0, 1):
        if t not in st:
            continue
        names = sorted(st[t], key=st[t].get)
        for a, b in zip(names, names[1:]):
            seq.setdefault((t, a, b), []).append(st[t][b] - st[t][a])
print("%-40s %10s %10s %10s  (us, intervals between a thread's marks)" % ("", "median", "min", "max"))
for (t, a, b), v in sorted(seq.items(), key=lambda x: (x[0][0], 0)):
    print("%-40s %10.1f %10.1f %10.1f" % ("t%d %s -> %s" % (t, a, b), statistics.median(v), min(v), max(v)))
print()

for k, st in sorted(steps.items()):
    if 0 not in st or 1 not in st:
        continue
    m0, m1 = st[0], st[1]
    add("wall", st["wall"])
    add("enter t0", m0["enter"])
    add("enter t1 - t0", m1["enter"] - m0["enter"])
    for name, a, b in WORK:
        if a in m0 and b in m0 and a in m1 and b in m1:
            add("work %s t0" % name, m0[b] - m0[a])
            add("work %s t1" % name, m1[b] - m1[a])
    for name, a, l in BARRIERS:
        if all(x in m for m in (m0, m1) for x in (a, l)):
            last = max(m0[a], m1[a])
            add("%s wait (last - first arrival)" % name, abs(m0[a] - m1[a]))
            add("%s release lag (max over threads)" % name, max(m0[l], m1[l]) - last)
    if "copy" in m0 and "copy" in m1 and "end" in m0:
        add("end: wait", abs(m0["copy"] - m1["copy"]))
        add("end: release lag (t0)", m0["end"] - max(m0["copy"], m1["copy"]))
print("%-40s %10s %10s %10s  (us, %d steps of 2 threads)" % ("", "median", "min", "max", len(rows.get("wall", []))))
for key, v in rows.items():
    print("%-40s %10.1f %10.1f %10.1f" % (key, statistics.median(v), min(v), max(v)))
