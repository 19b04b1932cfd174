# Summarise trace.sh output: per (threads, renumber) the sweep's process CPU
# (copy+sweep), and per thread the stretch and interface CPU, as lists.
import re, sys, collections
for fn in sys.argv[1:]:
    d = collections.defaultdict(lambda: collections.defaultdict(list))
    key = None
    for line in open(fn):
        m = re.match(r'# \S+ load (\S+) .*threads (\d+) renumber (\d+)', line)
        if m: key = (m.group(2), m.group(3)); d[key]['load'].append(float(m.group(1))); continue
        m = re.search(r'copy\+sweep ([\d.]+) / ([\d.]+)', line)
        if m: d[key]['sweep wall'].append(float(m.group(1))); d[key]['sweep cpu'].append(float(m.group(2))); continue
        m = re.match(r'trace: thread (\d) (\S+)\s+cpu\s+([\d.]+) ms wall\s+([\d.]+)', line)
        if m: d[key]['t%s %s cpu' % (m.group(1), m.group(2))].append(float(m.group(3)))
    print(fn)
    for k, v in d.items():
        print('  threads %s renumber %s' % k)
        for n, xs in v.items():
            s = sorted(xs); med = s[len(s)//2] if len(s) % 2 else (s[len(s)//2-1] + s[len(s)//2]) / 2
            print('    %-22s median %7.3f  [%s]' % (n, med, ' '.join('%.3f' % x for x in xs)))
