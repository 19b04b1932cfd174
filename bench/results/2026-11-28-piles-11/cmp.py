import csv, glob, math, sys, collections
a, b = sys.argv[1], sys.argv[2]
def load(d):
    R = {}
    for f in glob.glob(d + '/runs/*/results.csv'):
        fam = f.split('/')[-2]
        for row in csv.DictReader(open(f)):
            R[(fam, row['problem'], row['solver'])] = row
    return R
A, B = load(a), load(b)
agg = collections.defaultdict(lambda: [0, 0, 0, 0, [], 0, 0])
for k in sorted(A):
    if k not in B: continue
    x, y = A[k], B[k]
    fam = k[0].rsplit('-', 1)[0]; s = k[2]
    g = agg[(fam, s)]
    g[0] += 1
    g[1] += x['status'] == 'converged'
    g[2] += y['status'] == 'converged'
    if x['status'] == 'converged' and y['status'] == 'converged':
        tx, ty = max(float(x['seconds']), 1e-4), max(float(y['seconds']), 1e-4)
        g[4].append(math.log(ty / tx)); g[5] += int(x['iterations']); g[6] += int(y['iterations'])
    if (x['status'] == 'converged') != (y['status'] == 'converged') or (x['status']=='converged' and float(y['seconds'])>2*max(float(x['seconds']),1e-3)):
        print('  ', k, x['status'], x['iterations'], x['seconds'], '->', y['status'], y['iterations'], y['seconds'])
print('family solver n conv_base conv_cl geomean_time_ratio(both conv) iters base/cl')
tot = collections.defaultdict(lambda: [0,0,0,[]])
for (fam, s), g in sorted(agg.items()):
    gm = math.exp(sum(g[4]) / len(g[4])) if g[4] else float('nan')
    print(f'{fam:12s} {s:5s} {g[0]:3d} {g[1]:3d} {g[2]:3d} {gm:6.3f} {g[5]}/{g[6]}')
    t = tot[s]; t[0]+=g[0]; t[1]+=g[1]; t[2]+=g[2]; t[3]+=g[4]
for s, t in tot.items():
    print(f'{"all":12s} {s:5s} {t[0]:3d} {t[1]:3d} {t[2]:3d} {math.exp(sum(t[3])/len(t[3])):6.3f}')
