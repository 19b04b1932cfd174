"""Where the SPEC error of a global problem's solution sits: usage PROBLEM SOLUTION."""
import sys, numpy as np
import common as C
path, solpath = sys.argv[1], sys.argv[2]
d, nc, W, q, mu, scale = C.load(path)
r = C.F.read_solution(solpath, d, nc)
u = W @ r + q
err, e = C.contact_errors(W, q, mu, scale, r)
print("error", err, "||q||", np.linalg.norm(scale), "||r||", np.linalg.norm(r), "||u||", np.linalg.norm(u))
ea = np.sqrt((e.reshape(nc, 3) ** 2).sum(1)); tot = (ea ** 2).sum(); o = np.sort(ea ** 2)[::-1]
for frac in [0.001, 0.01, 0.1, 0.3]:
    k = max(1, int(frac * nc)); print(f"top {frac*100:.1f}% contacts ({k}): {o[:k].sum()/tot*100:.1f}% of error^2")
openc, stick, slide = C.status(r, mu)
H = C.read_H(path)   # a contact's bodies from its columns' rows (6 dofs a sphere)
p, i = H.indptr, H.indices
wall = np.array([len(set(i[p[3 * a]:p[3 * a + 3]] // 6)) == 1 for a in range(nc)])
rn = r[0::3]
for name, m in [("open", openc), ("stick", stick), ("slide", slide), ("wall", wall), ("sphere-sphere", ~wall)]:
    print(f"{name:14s} {m.sum():6d} contacts, {(ea[m]**2).sum()/tot*100:5.1f}% of error^2, mean |r_n| {np.abs(rn[m]).mean() if m.any() else 0:.3g}")
print("normal comp share %.1f%%" % ((e[0::3] ** 2).sum() / tot * 100))
