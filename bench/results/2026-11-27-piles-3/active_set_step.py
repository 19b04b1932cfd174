import sys, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as sla, time
sys.path.insert(0, '/work/shared/tools')
import fccheck as F
d, nc, W, q, mu, scale = F.read_problem(sys.argv[1])
W = sp.csr_matrix(W)
r = F.read_solution(sys.argv[2], d, nc)
def err(r):
    u = W @ r + q
    e = np.zeros_like(r)
    for a in range(nc):
        ra = r[3*a:3*a+3]; ua = u[3*a:3*a+3].copy(); ua[0] += mu[a]*np.linalg.norm(ua[1:3])
        e[3*a:3*a+3] = ra - F.proj_cone(ra-ua, mu[a], 3)
    s = max(np.linalg.norm(scale), np.linalg.norm(r), np.linalg.norm(u))
    return np.linalg.norm(e)/s
def proj(r):
    out = r.copy()
    for a in range(nc):
        out[3*a:3*a+3] = F.proj_cone(r[3*a:3*a+3], mu[a], 3)
    return out
print("start", err(r))
for it in range(int(sys.argv[3]) if len(sys.argv) > 3 else 3):
    R = r.reshape(nc,3); rn = R[:,0]; rt = np.linalg.norm(R[:,1:],axis=1)
    u = W @ r + q
    openc = rn <= 1e-9*rn.max()
    slide = (~openc) & (rt >= 0.999*mu*rn)
    stick = (~openc) & ~slide
    idx = []
    for a in np.where(stick)[0]: idx += [3*a, 3*a+1, 3*a+2]
    sl = np.where(slide)[0]
    # sliding: unknown dr_n, with r_T following: dr_T = mu dr_n that (t hat fixed direction of r_T)
    # columns: for sliding a, column = W[:,3a] + mu*(that1 W[:,3a+1] + that2 W[:,3a+2]) ; row: normal eq u_N
    idx = np.array(idx, int)
    nS = len(idx); nL = len(sl)
    That = R[sl,1:]/np.maximum(rt[sl],1e-300)[:,None]
    # build the basis matrix B (m x (nS+nL)) mapping unknowns to dr
    rows = list(idx); cols = list(range(nS)); vals = [1.0]*nS
    for k,a in enumerate(sl):
        rows += [3*a, 3*a+1, 3*a+2]; cols += [nS+k]*3; vals += [1.0, mu[a]*That[k,0], mu[a]*That[k,1]]
    B = sp.csr_matrix((vals,(rows,cols)), shape=(3*nc, nS+nL))
    # equations: stick all comps, sliding normal: selection C (rows)
    crow = list(idx) + [3*a for a in sl]
    C = sp.csr_matrix((np.ones(len(crow)), (np.arange(len(crow)), crow)), shape=(len(crow), 3*nc))
    A = (C @ W @ B).tocsr()
    b = -(C @ u)
    t0 = time.time()
    sol = sla.lsmr(A, b, atol=1e-6, btol=1e-6, maxiter=2000)
    x = sol[0]
    print(f"iter {it}: stick {stick.sum()} slide {nL} open {openc.sum()}; lsmr its {sol[2]} relres {np.linalg.norm(A@x-b)/np.linalg.norm(b):.2e} ({time.time()-t0:.1f}s)")
    dr = B @ x
    best = (err(r), 0.0)
    for t in [1.0, 0.5, 0.25, 0.125, 0.0625]:
        e = err(proj(r + t*dr))
        print(f"   t={t}: err {e:.3e}")
        if e < best[0]: best = (e, t)
    if best[1] > 0: r = proj(r + best[1]*dr)
    print("  kept t", best[1], "err", best[0])
np.savetxt(sys.argv[2] + ".sm", r)
