# Natural-parameter continuation in theta for one global pile step, with a
# semismooth Newton corrector on (v, r):
#   G1 = M v - H r - f = 0
#   G2 = r - P_K(r - rho * uhat_theta(H^T v + w)) = 0
# uhat_theta = u + theta mu |u_T| e_N.  SuperLU on the sparse Jacobian.
import h5py, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as sla, sys, time

fn = sys.argv[1]; start = sys.argv[2]; th0 = float(sys.argv[3])
dth = float(sys.argv[4]) if len(sys.argv) > 4 else 0.05
f = h5py.File(fn, 'r')['fclib_global']
def csc(g):
    m = int(g['m'][0]); n = int(g['n'][0]); p = g["p"][:]
    if len(p) == n + 1: return sp.csc_matrix((g["x"][:], g["i"][:], p), shape=(m, n))
    return sp.csr_matrix((g["x"][:], g["i"][:], p), shape=(m, n)).tocsc()
H = csc(f['H']); M = csc(f['M']); w = f['vectors/w'][:]; mu = f['vectors/mu'][:]; fv = f['vectors/f'][:]
if H.shape[0] != M.shape[0]: H = H.T.tocsc()
nc = len(mu); nv = M.shape[0]; m3 = 3 * nc
Ht = H.T.tocsr()

def load(fn):
    L = [l for l in open(fn) if not l.startswith('#')]
    rows = np.array([list(map(float, l.split())) for l in L[:nc]])
    v = np.array([float(l) for l in L[nc:]])
    return rows[:, :3].ravel(), v

# M^-1 from M's 6x6 body blocks (the simulator's M is block diagonal: its
# world-frame inertias carry round-off off the diagonal)
blocks = [M[6*b:6*b+6, 6*b:6*b+6] for b in range(nv // 6)]
if nv % 6 or abs(M - sp.block_diag(blocks)).max() != 0:
    sys.exit('M is not block diagonal with 6x6 blocks')
Minv = sp.block_diag([np.linalg.inv(b.toarray()) for b in blocks], format='csc')
# per-contact rho = 1 / mean of W_cc's diagonal (W = H^T M^-1 H)
Wd = np.array((H.multiply(Minv @ H)).sum(axis=0)).ravel().reshape(-1, 3)
rho = 1.0 / Wd.mean(axis=1)

def projK(x):
    n = x[:, 0]; t = np.linalg.norm(x[:, 1:], axis=1); out = x.copy()
    inside = t <= mu * n; polar = mu * t <= -n; mid = ~inside & ~polar
    a = (n[mid] + mu[mid] * t[mid]) / (1 + mu[mid] ** 2)
    out[polar] = 0
    out[mid, 0] = a; out[mid, 1:] = (mu[mid] * a / t[mid])[:, None] * x[mid, 1:]
    return out, inside, polar, mid

def uhat(u, th):
    U = u.reshape(-1, 3); uh = U.copy()
    uh[:, 0] += th * mu * np.linalg.norm(U[:, 1:], axis=1)
    return uh

def spec_err(r, v, th=1.0):
    u = Ht @ v + w
    R = r.reshape(-1, 3)
    e = R - projK(R - uhat(u, th))[0]
    return np.linalg.norm(e) / max(np.linalg.norm(w), np.linalg.norm(r), np.linalg.norm(u))

def resid(z, th):
    v = z[:nv]; r = z[nv:]
    u = Ht @ v + w
    y = r.reshape(-1, 3) - rho[:, None] * uhat(u, th)
    P = projK(y)[0]
    return np.concatenate([M @ v - H @ r - fv, r - P.ravel()])

def jac(z, th, delta=0.0):
    v = z[:nv]; r = z[nv:]
    u = Ht @ v + w; U = u.reshape(-1, 3)
    y = r.reshape(-1, 3) - rho[:, None] * uhat(u, th)
    _, inside, polar, mid = projK(y)
    D = np.zeros((nc, 3, 3))
    D[inside] = np.eye(3)
    idx = np.where(mid)[0]
    n = y[idx, 0]; tv = y[idx, 1:]; s = np.linalg.norm(tv, axis=1); tt = tv / s[:, None]
    m = mu[idx]; c = 1 + m ** 2; a = (n + m * s) / c
    D[idx, 0, 0] = 1 / c
    D[idx, 0, 1:] = (m / c)[:, None] * tt
    D[idx, 1:, 0] = (m / c)[:, None] * tt
    I2 = np.eye(2)[None]
    ttt = tt[:, :, None] * tt[:, None, :]
    D[idx, 1:, 1:] = (m ** 2 / c)[:, None, None] * ttt + (m * a / s)[:, None, None] * (I2 - ttt)
    # dU: d uhat / du
    Ut = np.linalg.norm(U[:, 1:], axis=1)
    dU = np.tile(np.eye(3), (nc, 1, 1))
    nz = Ut > 0
    dU[nz, 0, 1:] += (th * mu[nz] / Ut[nz])[:, None] * U[nz, 1:]
    B = D @ dU * rho[:, None, None]
    Db = sp.block_diag(list(D), format='csr')
    Bb = sp.block_diag(list(B), format='csr')
    J = sp.bmat([[M, -H], [Bb @ Ht, (1 + delta) * sp.identity(m3) - Db]], format='csc')
    return J

def newton(z, th, maxit=30, tol=1e-11, verbose=True):
    g = resid(z, th); ng = np.linalg.norm(g)
    for it in range(maxit):
        t0 = time.time()
        J = jac(z, th, min(1e-2, 10 * ng))
        try:
            lu = sla.splu(J, permc_spec='COLAMD')
            dz = -lu.solve(g)
        except RuntimeError as ex:
            print('   LU failed', ex); return z, False
        t = 1.0
        while t > 1e-6:
            zn = z + t * dz; gn = resid(zn, th); nn = np.linalg.norm(gn)
            if nn <= (1 - 1e-4 * t) * ng: break
            t *= 0.5
        if t <= 1e-6:
            if verbose: print('   it %d: line search failed |G| %.3e' % (it, ng))
            return z, False
        z, g, ng = zn, gn, nn
        e = spec_err(z[nv:], z[:nv], th)
        if verbose: print('   it %d t %.3g |G| %.3e err_th %.3e err_1 %.3e (%.2fs)' % (it, t, ng, e, spec_err(z[nv:], z[:nv]), time.time() - t0), flush=True)
        if e < tol: return z, True
    return z, False

def run():
    r0, v0 = load(start)
    z = np.concatenate([v0, r0])
    print('start err at th0 %.3e, at 1 %.3e' % (spec_err(r0, v0, th0), spec_err(r0, v0)))
    th = th0
    z, ok = newton(z, th)
    print('theta %.4f ok %s' % (th, ok), flush=True)
    if not ok: sys.exit(1)
    while th < 1 and dth > 1e-4:
        tn = min(1.0, th + dth)
        print('-> theta %.4f' % tn, flush=True)
        zn, ok = newton(z.copy(), tn)
        if ok:
            z, th = zn, tn; dth *= 1.5
            np.save('z_%.4f.npy' % th, z)
        else:
            dth /= 2
    print('end theta %.4f err1 %.3e' % (th, spec_err(z[nv:], z[:nv])))


if __name__ == '__main__':
    run()
