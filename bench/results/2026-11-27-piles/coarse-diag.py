# What part of nncg's remaining error lies in rigid-cluster modes?  Usage:
#   coarse-diag.py PROBLEM.hdf5 ITERATE.sol REFERENCE.sol
# ev = v(iterate) - v(reference), v = M^-1 (H r + f); the share of |ev|_M^2
# in per-cluster translations and in per-cluster rigid motions (translation
# and rotation about the centroid; positions from H's lever arms), for
# clusters of 4-100 bodies grown breadth first over the contact graph.
# Assumes 6 dofs per body, translation then rotation (the simulator's piles).
# coarse-diag.txt: build/fricon solve examples/pile-step24.hdf5 --solver nncg
# --cold --tol 1e-7 --time-limit 60 --output /tmp/c24-ref.sol (the reference:
# 49776 sweeps, 3.96e-5) and --tol 1e-9 --max-iter 150 (430) --output
# /tmp/c24-150.sol (/tmp/c24-430.sol); run with /usr/bin/python3.
import sys, numpy as np, scipy.sparse as sp, h5py
sys.path.insert(0, '/work/shared/tools')
import fccheck
f = h5py.File(sys.argv[1], 'r')
def mat(g):
    nz = int(np.array(g["nz"]).ravel()[0]); m = int(np.array(g["m"]).ravel()[0]); n = int(np.array(g["n"]).ravel()[0])
    p = np.array(g["p"]).ravel(); i = np.array(g["i"]).ravel(); x = np.array(g["x"]).ravel()
    if nz == -1: return sp.csc_matrix((x, i, p), shape=(m, n)).tocsr()
    if nz == -2: return sp.csr_matrix((x, i, p), shape=(m, n))
    return sp.csr_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n))
g = f['fclib_global']
M = mat(g['M']); H = mat(g['H']); fv = np.array(g['vectors']['f']).ravel(); w = np.array(g['vectors']['w']).ravel(); mu=np.array(g['vectors']['mu']).ravel()
n = M.shape[0]; m = H.shape[1]; d = 3; nc = m // 3
print('n', n, 'm', m, 'M diag first 12', M.diagonal()[:12], 'M nnz/n', M.nnz / n)
Mi = sp.linalg.splu(sp.csc_matrix(M))
def vel(r): return Mi.solve(H @ r + fv)
r1 = fccheck.read_solution(sys.argv[2], d, nc); r2 = fccheck.read_solution(sys.argv[3], d, nc)
v1, v2 = vel(r1), vel(r2)
ev = v1 - v2
Mn = lambda x: np.sqrt(x @ (M @ x))
print('|ev|_M', Mn(ev), '|v|_M', Mn(v2), '|er|', np.linalg.norm(r1 - r2), '|r|', np.linalg.norm(r2))
nb = n // 6
# bodies graph via contacts
Hc = H.tocsc()
body_of = lambda j: np.unique(Hc.indices[Hc.indptr[j]:Hc.indptr[j+1]] // 6)
cb = [body_of(3*a) for a in range(nc)]
adj = [[] for _ in range(nb)]
for bs in cb:
    if len(bs) == 2: adj[bs[0]].append(bs[1]); adj[bs[1]].append(bs[0])
for size in (4, 10, 30, 100):
    cl = -np.ones(nb, int); ncl = 0
    for b0 in range(nb):
        if cl[b0] >= 0: continue
        q = [b0]; cl[b0] = ncl; cnt = 1; h = 0
        while h < len(q) and cnt < size:
            b = q[h]; h += 1
            for c in adj[b]:
                if cl[c] < 0 and cnt < size: cl[c] = ncl; q.append(c); cnt += 1
        ncl += 1
    # M-orthogonal projection of ev on per-cluster translations (dofs 0..2 of each body)
    proj = np.zeros(n)
    md = M.diagonal()
    for k in range(3):
        idx = np.arange(nb) * 6 + k
        num = np.bincount(cl, weights=md[idx] * ev[idx], minlength=ncl)
        den = np.bincount(cl, weights=md[idx], minlength=ncl)
        proj[idx] = (num / den)[cl]
    print('clusters of', size, 'bodies:', ncl, 'translation part captures %.3f of |ev|_M^2' % (1 - Mn(ev - proj)**2 / Mn(ev)**2))
# translational vs rotational share
tr = np.zeros(n); idx = (np.arange(n) % 6) < 3; tr[idx] = ev[idx]
print('translational dofs share of |ev|_M^2: %.3f' % (Mn(tr)**2 / Mn(ev)**2))
# lever arms: for contact a on body b, rot rows = l x e_k (or e_k x l): l = 1/2 sum_k e_k x rot_k
Hd = H.tocsc()
pos = np.full((nb, 3), np.nan)
def blockcol(j, b):
    col = Hd[:, j].toarray().ravel()
    return col[6*b:6*b+3], col[6*b+3:6*b+6]
arms = {}
for a in range(nc):
    for b in cb[a]:
        l = np.zeros(3)
        for k in range(3):
            t, rt = blockcol(3*a+k, b)
            l += 0.5 * np.cross(t, rt)
        arms[(a, b)] = l
print('arm lengths sample', [np.linalg.norm(arms[(a, cb[a][0])]) for a in range(5)])
# positions by BFS: x_B = x_A + l_{a,A} - l_{a,B}
bc = [[] for _ in range(nb)]
for a in range(nc):
    for b in cb[a]: bc[b].append(a)
pos[:] = np.nan
for b0 in range(nb):
    if not np.isnan(pos[b0, 0]): continue
    pos[b0] = 0; q = [b0]
    while q:
        A = q.pop()
        for a in bc[A]:
            if len(cb[a]) < 2: continue
            B = cb[a][0] if cb[a][1] == A else cb[a][1]
            if np.isnan(pos[B, 0]):
                pos[B] = pos[A] + arms[(a, A)] - arms[(a, B)]; q.append(B)
# check consistency: |x_A - x_B| vs |l_A| + |l_B|
bad = []
for a in range(nc):
    if len(cb[a]) == 2:
        A, B = cb[a]
        bad.append(np.linalg.norm(pos[A] + arms[(a, A)] - pos[B] - arms[(a, B)]))
print('position closure error max', max(bad), 'median arm', np.median([np.linalg.norm(x) for x in arms.values()]))
md = M.diagonal()
for size in (4, 10, 30):
    cl = -np.ones(nb, int); ncl = 0
    for b0 in range(nb):
        if cl[b0] >= 0: continue
        q = [b0]; cl[b0] = ncl; cnt = 1; h = 0
        while h < len(q) and cnt < size:
            b = q[h]; h += 1
            for c in adj[b]:
                if cl[c] < 0 and cnt < size: cl[c] = ncl; q.append(c); cnt += 1
        ncl += 1
    cap = 0.0; tot = Mn(ev)**2
    for c in range(ncl):
        bs = np.where(cl == c)[0]
        xc = pos[bs].mean(0)
        Pm = np.zeros((6*len(bs), 6)); Md = np.zeros(6*len(bs)); e = np.zeros(6*len(bs))
        for i, b in enumerate(bs):
            dx = pos[b] - xc
            for k in range(3):
                Pm[6*i+k, k] = 1
                ek = np.zeros(3); ek[k] = 1
                Pm[6*i:6*i+3, 3+k] = np.cross(ek, dx)
                Pm[6*i+3+k, 3+k] = 1
            Md[6*i:6*i+6] = md[6*b:6*b+6]; e[6*i:6*i+6] = ev[6*b:6*b+6]
        A = Pm.T @ (Md[:, None] * Pm); rhs = Pm.T @ (Md * e)
        c_ = np.linalg.lstsq(A, rhs, rcond=None)[0]
        cap += rhs @ c_
    print('rigid clusters of', size, ': captures %.3f of |ev|_M^2' % (cap / tot))
