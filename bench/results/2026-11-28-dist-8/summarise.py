#!/usr/bin/python3
"""ab.txt (ab.sh's output) as one line per run: binary, round, step, ranks,
sweeps, JSON seconds, mpirun wall, the busiest rank's CPU split (setup,
iterations, own work, the rest = MPI and vector passes), the least busy
rank's own work, the load; then per binary and step the medians and the
1/2-rank ratios of seconds and wall."""
import re, sys, statistics as st
runs, binary, rnd, step, np_, load = [], None, None, None, None, None
cur = None
for line in open(sys.argv[1] if len(sys.argv) > 1 else 'ab.txt'):
    m = re.match(r'#### round (\d+): (\S+)', line)
    if m: rnd, binary = int(m.group(1)), m.group(2).split('/')[-3]; continue
    m = re.match(r'== (\S+): nc', line)
    if m: step = ('P16' if '16k' in m.group(1) else 'P34') + ' step ' + str(int(m.group(1).split('-')[-1][:6])); continue
    m = re.match(r'== (\d) rank.*load average: ([0-9.]+)', line)
    if m: np_, load = int(m.group(1)), float(m.group(2)); continue
    m = re.search(r'after (\d+) iterations.*iterations: ([0-9.]+) s CPU.*measuring ([0-9.]+) s.*least busy, rank \d, ([0-9.]+) s.*setup ([0-9.]+) s CPU', line)
    if m:
        cur = dict(bin=binary, rnd=rnd, step=step, np=np_, load=load, sweeps=int(m.group(1)), iters=float(m.group(2)),
                   own=float(m.group(3)), least=float(m.group(4)), setup=float(m.group(5)))
        continue
    m = re.search(r'"seconds": ([0-9.e+-]+)', line)
    if m and cur: cur['sec'] = float(m.group(1)); continue
    m = re.match(r'mpirun wall ([0-9.]+)', line)
    if m and cur: cur['wall'] = float(m.group(1)); runs.append(cur); cur = None
print('bin        rnd step        np load sweeps seconds  wall  setup iters  own  rest least')
for r in runs:
    print('%-10s %d %-12s %d %5.2f %5d %7.2f %6.2f %5.3f %5.2f %5.2f %5.2f %5.2f' % (r['bin'], r['rnd'], r['step'], r['np'], r['load'],
          r['sweeps'], r['sec'], r['wall'], r['setup'], r['iters'], r['own'], r['iters'] - r['own'], r['least']))
print('\nmedians over rounds; ratio = 1 rank / 2 ranks')
for b in sorted({r['bin'] for r in runs}):
    for s in sorted({r['step'] for r in runs}):
        def med(np_, k):
            v = [r[k] for r in runs if r['bin'] == b and r['step'] == s and r['np'] == np_]
            return st.median(v) if v else float('nan')
        print('%-10s %-12s seconds %6.2f / %6.2f (%.2fx)  wall %6.2f / %6.2f (%.2fx)  setup %.3f / %.3f  own %.2f / %.2f' % (
            b, s, med(1, 'sec'), med(2, 'sec'), med(1, 'sec') / med(2, 'sec'), med(1, 'wall'), med(2, 'wall'),
            med(1, 'wall') / med(2, 'wall'), med(1, 'setup'), med(2, 'setup'), med(1, 'own'), med(2, 'own')))
