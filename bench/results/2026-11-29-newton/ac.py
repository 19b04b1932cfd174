import os
HERE = os.path.dirname(os.path.abspath(__file__))
# Alart-Curnier form of the theta-law (Coulomb for u~ = u - (1-theta) mu |u_T| e_N),
# semismooth Newton on (v, r), SuperLU, with natural-parameter continuation in theta.
exec(open(os.path.join(HERE, 'cont.py')).read().split("def resid(z, th):")[0])

def parts(z, th):
    v = z[:nv]; r = z[nv:]
    U = (Ht @ v + w).reshape(-1, 3); R = r.reshape(-1, 3)
    ut = np.linalg.norm(U[:, 1:], axis=1)
    un = U[:, 0] - (1 - th) * mu * ut
    xn = R[:, 0] - rho * un
    xt = R[:, 1:] - rho[:, None] * U[:, 1:]
    rad = mu * np.maximum(R[:, 0], 0)
    xs = np.linalg.norm(xt, axis=1)
    return v, r, U, R, ut, un, xn, xt, rad, xs

def resid(z, th):
    v, r, U, R, ut, un, xn, xt, rad, xs = parts(z, th)
    G = np.empty((nc, 3))
    G[:, 0] = R[:, 0] - np.maximum(xn, 0)
    sc = np.where(xs > rad, rad / np.maximum(xs, 1e-300), 1.0)
    G[:, 1:] = R[:, 1:] - sc[:, None] * xt
    return np.concatenate([M @ v - H @ r - fv, G.ravel()])

def jac(z, th, delta=0.0):
    v, r, U, R, ut, un, xn, xt, rad, xs = parts(z, th)
    A = np.zeros((nc, 3, 3))   # d G / d u
    B = np.zeros((nc, 3, 3))   # d G / d r
    pos = xn > 0
    A[pos, 0, 0] = rho[pos]
    nz = pos & (ut > 0)
    A[nz, 0, 1:] = -(rho[nz] * (1 - th) * mu[nz] / ut[nz])[:, None] * U[nz, 1:]
    B[~pos, 0, 0] = 1
    ins = xs <= rad
    A[ins, 1, 1] = A[ins, 2, 2] = rho[ins]
    out = ~ins
    xh = xt[out] / xs[out][:, None]
    P = np.eye(2)[None] - xh[:, :, None] * xh[:, None, :]
    k = (rad[out] / xs[out])[:, None, None] * P
    B[out, 1:, 1:] = np.eye(2)[None] - k
    A[out, 1:, 1:] = rho[out][:, None, None] * k
    rp = out & (R[:, 0] > 0)
    B[rp, 1:, 0] = -(mu[rp])[:, None] * (xt[rp] / xs[rp][:, None])
    Ab = sp.block_diag(list(A), format='csr'); Bb = sp.block_diag(list(B), format='csr')
    return sp.bmat([[M, -H], [Ab @ Ht, Bb + delta * sp.identity(m3)]], format='csc')

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
            if verbose: print('   it %d: line search failed |G| %.3e' % (it, ng)); 
            return z, False
        z, g, ng = zn, gn, nn
        e = spec_err(z[nv:], z[:nv], th)
        if verbose: print('   it %d t %.3g |G| %.3e err_th %.3e err_1 %.3e (%.2fs)' % (it, t, ng, e, spec_err(z[nv:], z[:nv]), time.time() - t0), flush=True)
        if e < tol: return z, True
    return z, False

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
