"""For step files of DIR (exported with the dumps of FC_WARM_DUMP): the SPEC
error at each warm-start guess (mode 0 copy, 1 world-frame projection, 2 that
projected on the cone), the angle of the tangential part to the reference
(the file's /solution, the simulator's answer), and copies of the file with
/guesses replaced by the mode-1 and mode-2 guesses (r, u, v consistent)."""
import sys, shutil, h5py, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as sla
sys.path.insert(0, '/work/wt-pile8/tests')
from gfccheck import matrix as csc
def proj(x, mu):
    n, t = x[:, 0], x[:, 1:]; nt = np.linalg.norm(t, axis=1)
    out = x.copy()
    inside = nt <= mu * n
    polar = mu * nt <= -n
    mid = ~inside & ~polar
    a = (n[mid] + mu[mid] * nt[mid]) / (1 + mu[mid] ** 2)
    out[polar] = 0
    out[mid, 0] = a
    out[mid, 1:] = (mu[mid] * a / nt[mid])[:, None] * t[mid]
    return out
def err(M, H, f, w, mu, r):
    lu = sla.splu(M.tocsc())
    v = lu.solve(H @ r + f)
    u = H.T @ v + w
    R, U = r.reshape(-1, 3), u.reshape(-1, 3)
    uh = U.copy(); uh[:, 0] += mu * np.linalg.norm(U[:, 1:], axis=1)
    e = R - proj(R - uh, mu)
    s = max(np.linalg.norm(w), np.linalg.norm(r), np.linalg.norm(u))
    return np.linalg.norm(e) / s, v, u, (e ** 2).sum(1) / s ** 2
d = sys.argv[1]
for k in [int(a) for a in sys.argv[2:]]:
    path = f'{d}/pile-{k:06d}.hdf5'
    F = h5py.File(path, 'r')
    g = F['fclib_global']
    M, H = csc(g['M']), csc(g['H'])
    f, w, mu = g['vectors/f'][:], g['vectors/w'][:], g['vectors/mu'][:]
    sol = F['solution/r'][:]
    gfile = F['guesses/1/r'][:]
    F.close()
    G = [np.fromfile(f'{d}/guess-{k}-mode{m}.bin') for m in range(3)]
    assert np.allclose(G[0], gfile)
    S = sol.reshape(-1, 3)
    es, _, _, _ = err(M, H, f, w, mu, sol)
    line = f'step {k} nc {len(mu)} ref(sim answer) err {es:.2e}'
    for m in range(3):
        e, v, u, ea = err(M, H, f, w, mu, G[m])
        R = G[m].reshape(-1, 3)
        big = np.linalg.norm(S[:, 1:], axis=1) > 1e-2 * np.abs(S[:, 1:]).max()
        big &= np.linalg.norm(R[:, 1:], axis=1) > 0
        c = (R[big, 1:] * S[big, 1:]).sum(1) / (np.linalg.norm(R[big, 1:], axis=1) * np.linalg.norm(S[big, 1:], axis=1))
        dist = np.linalg.norm(G[m] - sol) / np.linalg.norm(sol)
        line += f' | mode{m} err {e:.2e} |g-ref|/|ref| {dist:.3f} T-angle>30deg {np.mean(c < np.cos(np.pi/6))*100:.1f}% of {big.sum()} median angle {np.degrees(np.median(np.arccos(np.clip(c,-1,1)))):.1f}'
        if m > 0:
            out = f'{d}/pile-{k:06d}-mode{m}.hdf5'
            shutil.copy(path, out)
            with h5py.File(out, 'r+') as F2:
                F2['guesses/1/r'][...] = G[m]
                F2['guesses/1/u'][...] = u
                F2['guesses/1/v'][...] = v
    print(line, flush=True)
