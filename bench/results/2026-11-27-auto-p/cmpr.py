import csv, sys
def load(d):
    return {r['problem']: r for r in csv.DictReader(open(d + '/results.csv')) if r['solver'] == 'auto'}
base = load(sys.argv[1])
for d in sys.argv[2:]:
    a = load(d)
    n = conv = convb = same = 0; t = tb = 0.0; lines = []
    for p in sorted(base):
        if p not in a: continue
        n += 1; rb, ra = base[p], a[p]
        okb, oka = rb['status'] == 'converged', ra['status'] == 'converged'
        convb += okb; conv += oka
        tb += float(rb['seconds']) if okb else 6.0; t += float(ra['seconds']) if oka else 6.0
        if (rb['status'], rb['iterations']) == (ra['status'], ra['iterations']): same += 1; continue
        lines.append('  %-40s %-10s %6s %7.3f -> %-10s %6s %7.3f' % (p, rb['status'], rb['iterations'], float(rb['seconds']), ra['status'], ra['iterations'], float(ra['seconds'])))
    print('%s: %d problems, %d same; converged %d -> %d; CPU (failure 6 s) %.2f -> %.2f' % (d, n, same, convb, conv, tb, t))
    if '-v' in sys.argv[0:1] or True: print('\n'.join(lines))
