import sys, subprocess, re
def load(f):
    out = subprocess.run(['callgrind_annotate', '--threshold=100', f], capture_output=True, text=True).stdout
    d = {}
    for line in out.splitlines():
        m = re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+(\S+)', line)
        if m and 'PROGRAM' not in line: d[m.group(2)] = int(m.group(1).replace(',', ''))
    return d
a, b = load(sys.argv[1]), load(sys.argv[2]); n = float(sys.argv[3])
rows = sorted(((b.get(k, 0) - a.get(k, 0)) / n, k) for k in set(a) | set(b))
tot = sum(r[0] for r in rows)
for v, k in reversed(rows[-12:]): print("%8.1f  %s" % (v, k.split('[')[0]))
print("%8.1f  total per contact-sweep" % tot)
