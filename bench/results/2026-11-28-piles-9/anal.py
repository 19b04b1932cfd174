import numpy as np, h5py, sys
f = h5py.File('p1/pile-000036.hdf5','r')
def walk(g, pre=''):
    for k in g:
        it = g[k]
        if isinstance(it, h5py.Group): walk(it, pre + k + '/')
mu = None
for path in ['fclib_global/problem/mu', 'fclib_global/mu']:
    if path in f: mu = f[path][()]
if mu is None:
    def find(g):
        for k in g:
            if k == 'mu': return g[k][()]
            if isinstance(g[k], h5py.Group):
                x = find(g[k])
                if x is not None: return x
    mu = find(f)
def load(fn):
    a = np.loadtxt(fn, comments='#', max_rows=8219)
    return a[:, :3], a[:, 3:6]
def proj(x, m):
    n, t = x[:, 0], x[:, 1:]
    nt = np.linalg.norm(t, axis=1)
    out = x.copy()
    inside = nt <= m * n
    polar = m * nt <= -n
    mid = ~inside & ~polar
    a = (n[mid] + m[mid] * nt[mid]) / (1 + m[mid] ** 2)
    out[polar] = 0
    out[mid, 0] = a
    out[mid, 1:] = (m[mid] * a / nt[mid])[:, None] * t[mid]
    return out
res = {}
for k in sys.argv[1:]:
    r, u = load('it%s.sol' % k)
    uh = u.copy(); uh[:, 0] += mu * np.linalg.norm(u[:, 1:], axis=1)
    e = r - proj(r - uh, mu)
    e2 = (e ** 2).sum(1)
    rt = np.linalg.norm(r[:, 1:], axis=1)
    st = np.where(r[:, 0] <= 1e-12 * np.abs(r).max(), 0, np.where(rt < mu * r[:, 0] * (1 - 1e-9), 1, 2))
    tot = e2.sum()
    srt = np.sort(e2)[::-1]; c = np.cumsum(srt) / tot
    print('it', k, 'err2 total %.3e' % tot, 'open/stick/slide counts', [(st == i).sum() for i in range(3)],
          'share', ['%.2f' % (e2[st == i].sum() / tot) for i in range(3)],
          'contacts for 50%%: %d 90%%: %d' % ((c < 0.5).sum() + 1, (c < 0.9).sum() + 1))
    res[k] = (e2, st, r)
ks = sys.argv[1:]
for i in range(len(ks) - 1):
    a, b = res[ks[i]], res[ks[i + 1]]
    d = b[0] - a[0]
    inc = np.sort(d)[::-1]; c = np.cumsum(np.clip(inc, 0, None)) / np.clip(d, 0, None).sum()
    ch = (a[1] != b[1]).sum()
    dr = np.linalg.norm(b[2] - a[2]) / np.linalg.norm(a[2])
    print(ks[i], '->', ks[i + 1], 'err2 increase in %d contacts for 50%%, %d for 90%%' % ((c < 0.5).sum() + 1, (c < 0.9).sum() + 1), 'status changes', ch, 'rel change r %.3e' % dr)
import warnings
for k in ks:
    e2, st, r = res[k]
    rr, uu = load('it%s.sol' % k)
    top = np.argsort(e2)[::-1][:8]
    print('iterate', k)
    for a in top:
        print('  c%5d st%d e %.2e r %s u %s' % (a, st[a], np.sqrt(e2[a]), np.array2string(rr[a], precision=3), np.array2string(uu[a], precision=3)))
