import sys, re, statistics as st
d = {}
for f in sys.argv[1:]:
    key = None
    for l in open(f):
        if l.startswith('#') and 'threads' in l and 'file' in l:
            m = re.search(r'file (\S+) K \d+ threads (\d+) order (\d+) cpu_clock=(\d)', l)
            key = (m.group(1).split('/')[0], 'threads ' + m.group(2), 'order ' + m.group(3), 'cpu' if m.group(4) == '1' else 'wall')
        elif key and re.match(r'^ [0-9]', l):
            a, b = map(float, l.split())
            d.setdefault(key, ([], []))
            d[key][0].append(a); d[key][1].append(b)
for k, (a, b) in sorted(d.items()):
    print("%-50s n=%2d  main %.2f  this %.2f ms per sweep (medians)  main/this %.2f" % (' '.join(k), len(a), st.median(a), st.median(b), st.median(a) / st.median(b)))
