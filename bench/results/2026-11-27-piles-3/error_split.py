import sys, numpy as np
sys.path.insert(0, '/work/shared/tools')
import fccheck as F, h5py, scipy.sparse as sp
path, solpath = sys.argv[1], sys.argv[2]
d, nc, W, q, mu, scale = F.read_problem(path)
f = h5py.File(path); g = f['fclib_global']
def mat(g):
    nz = int(np.array(g["nz"]).ravel()[0]); m = int(np.array(g["m"]).ravel()[0]); n = int(np.array(g["n"]).ravel()[0])
    p = np.array(g["p"]).ravel(); i = np.array(g["i"]).ravel(); x = np.array(g["x"]).ravel()
    if nz == -1: return sp.csc_matrix((x, i, p), shape=(m, n))
    if nz == -2: return sp.csr_matrix((x, i, p), shape=(m, n)).tocsc()
    return sp.csc_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n))
Hm = mat(g['H'])
r = F.read_solution(solpath, d, nc)
u = W @ r + q
e = np.zeros_like(r)
for a in range(nc):
    ra = r[3*a:3*a+3]; ua = u[3*a:3*a+3].copy(); ua[0] += mu[a]*np.linalg.norm(ua[1:3])
    e[3*a:3*a+3] = ra - F.proj_cone(ra-ua, mu[a], 3)
s = max(np.linalg.norm(scale), np.linalg.norm(r), np.linalg.norm(u))
print("error", np.linalg.norm(e)/s, "s", s, "||q||", np.linalg.norm(scale), "||r||", np.linalg.norm(r), "||u||", np.linalg.norm(u))
ea = np.sqrt((e.reshape(nc,3)**2).sum(1))
tot = (ea**2).sum()
o = np.sort(ea**2)[::-1]
for frac in [0.001, 0.01, 0.1, 0.3]:
    k = max(1,int(frac*nc)); print(f"top {frac*100:.1f}% contacts ({k}): {o[:k].sum()/tot*100:.1f}% of error^2")
R = r.reshape(nc,3); U = u.reshape(nc,3)
rn = R[:,0]; rt = np.linalg.norm(R[:,1:],axis=1)
openc = rn <= 1e-12*np.abs(rn).max()
slide = (~openc) & (rt >= 0.999*mu*rn)
stick = (~openc) & ~slide
# wall contacts: H column block has nonzeros in one body only (rows of 6)
Hc = Hm.tocsc()
nb = np.zeros(nc, int)
for a in range(nc):
    rows = Hc.indices[Hc.indptr[3*a]:Hc.indptr[3*a+3]]
    nb[a] = len(set(rows//6))
wall = nb == 1
for name, m in [("open", openc), ("stick", stick), ("slide", slide), ("wall", wall), ("sphere-sphere", ~wall)]:
    print(f"{name:14s} {m.sum():6d} contacts, {(ea[m]**2).sum()/tot*100:5.1f}% of error^2, mean |r_n| {np.abs(rn[m]).mean() if m.any() else 0:.3g}")
# components
print("normal comp share %.1f%%" % ((e.reshape(nc,3)[:,0]**2).sum()/tot*100))
