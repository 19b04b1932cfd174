import csv, glob, os, re, sys
alone = {}
for r in csv.DictReader(open('bench-alone/results.csv')):
    alone[(r['problem'].replace('.hdf5',''), r['solver'])] = r
main = {}
for f in glob.glob('/work/main/bench/results/2026-11-27-auto-n/tuning-*-aft.csv'):
    for r in csv.DictReader(open(f)):
        main[r['problem'].replace('.hdf5','')] = r
def trace(b, d='trace-nocut'):
    pts = []; st = None
    for l in open(os.path.join(d, b + '.txt')):
        m = re.match(r'\s*auto: nncg sweep (\d+), error (\S+), (\S+) sweeps to go', l)
        if m: pts.append((int(m[1]), float(m[2]), float(m[3]))); continue
        m = re.match(r'\s*stage nncg: (\S+) after (\d+) iterations', l)
        if m: st = (m[1], int(m[2]))
    return pts, st
rows = []
for f in open('files.txt'):
    b = os.path.basename(f.strip()).replace('.hdf5','')
    pts, st = trace(b)
    ns, nn = alone.get((b,'nsgs')), alone.get((b,'nncg'))
    if not nn or not ns: continue
    rows.append((b, pts, st, ns, nn, main.get(b)))
if __name__ == '__main__':
    for b, pts, st, ns, nn, m in rows:
        if st and st[1] < 1000 and st[0]=='converged': continue
        print('%-40s nncg-stage %s %s | nsgs %s %s %s | nncg %s %s %s | main %s' % (b, st[0] if st else '-', st[1] if st else '-',
          ns['status'][:4], ns['iterations'], ns['seconds'], nn['status'][:4], nn['iterations'], nn['seconds'],
          (m['status'][:4] + ' ' + m['iterations'] + ' ' + m['seconds']) if m else '-'))
