from an import rows
for b, pts, st, ns, nn, m in rows:
    if st and st[1] < 1000 and st[0]=='converged': continue
    tnn = float(nn['seconds'])/int(nn['iterations'])
    nsw = float(ns['seconds'])/tnn if ns['status']=='converged' else float('inf')
    out = []
    for target in (200, 400, 800, 1600, 3200, 6400):
        c = [p for p in pts if p[0] <= target]
        if c: p = c[-1]; out.append('%d:%.1e/%s' % (p[0], p[1], ('%.0f' % (p[0]+p[2])) if p[2] < 1e9 else 'inf'))
    print('%-36s %s %5s | nsgs=%6.0f nncg-sw | %s' % (b[:36], st[0][:4], st[1], nsw, '  '.join(out)))
