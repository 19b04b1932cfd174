#!/usr/bin/python3
"""Independent checker for large global problems (M, H, f, w, mu), which
shared/tools/fccheck.py cannot take: it forms W = H^T M^-1 H through a
dense M^-1 H (n x m doubles: 500 GB for a 10^5-contact pile step).

usage: gfccheck.py PROBLEM SOLUTION [--stats]
PROBLEM: FClib .hdf5 with /fclib_global (d = 2 or 3, no equalities).
SOLUTION: the text format of SPEC section 3 (r of each contact on its line).
Prints the SPEC section 2 error of the solution's r: v = M^-1 (H r + f)
by a sparse LU of M (scipy), u = H^T v + w (the same u as W r + q,
without W), u_hat = u + mu ||u_T|| e_N,
error = ||r - P_K(r - u_hat)|| / max(||w||, ||r||, ||u||).
--stats adds one line: contacts, those with r_N > 0 (carrying an impulse),
the largest |v| of a translational dof triple (bodies of 6 dofs).

Written for the project's tests and benchmarks with numpy/scipy/h5py
only (nothing of fricon): the cone projection is vectorised here."""
import sys
import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def matrix(g):
    nz = int(np.array(g["nz"]).ravel()[0])
    m = int(np.array(g["m"]).ravel()[0])
    n = int(np.array(g["n"]).ravel()[0])
    p = np.array(g["p"]).ravel()
    i = np.array(g["i"]).ravel()
    x = np.array(g["x"]).ravel()
    if nz == -1:
        return sp.csc_matrix((x, i, p), shape=(m, n))
    if nz == -2:
        return sp.csr_matrix((x, i, p), shape=(m, n))
    return sp.csr_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n))


def read_global(path):
    with h5py.File(path, "r") as f:
        if "fclib_global" not in f:
            raise SystemExit("gfccheck.py: %s: no /fclib_global" % path)
        g = f["fclib_global"]
        d = int(np.array(g["spacedim"]).ravel()[0])
        M, H = matrix(g["M"]), matrix(g["H"])
        vec = g["vectors"]
        fv = np.array(vec["f"]).ravel()
        w = np.array(vec["w"]).ravel()
        mu = np.array(vec["mu"]).ravel()
    return d, M, H, fv, w, mu


def read_r(path, d, nc):
    r = np.zeros((nc, d))
    a = 0
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            r[a] = [float(t) for t in line.split()[:d]]
            a += 1
            if a == nc:
                break
    if a < nc:
        raise SystemExit("gfccheck.py: %s: %d contacts, %d expected" % (path, a, nc))
    return r


def project(x, mu):
    """Rows of x projected onto the cones ||x_T|| <= mu x_N."""
    xn, xt = x[:, 0], x[:, 1:]
    nt = np.linalg.norm(xt, axis=1)
    out = x.copy()
    dual = mu * nt <= -xn                       # in the polar cone: 0
    inside = nt <= mu * xn
    side = ~(dual | inside)
    a = (xn + mu * nt) / (1 + mu * mu)
    out[dual] = 0.0
    out[side, 0] = a[side]
    scale = np.where(side, mu * a / np.where(nt > 0, nt, 1.0), 0.0)
    out[side, 1:] = xt[side] * scale[side, None]
    return out


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    d, M, H, fv, w, mu = read_global(sys.argv[1])
    nc = len(mu)
    r = read_r(sys.argv[2], d, nc)
    v = spla.splu(sp.csc_matrix(M)).solve(H @ r.ravel() + fv)
    u = (H.T @ v + w).reshape(nc, d)
    uh = u.copy()
    uh[:, 0] += mu * np.linalg.norm(u[:, 1:], axis=1)
    e = r - project(r - uh, mu)
    s = max(np.linalg.norm(w), np.linalg.norm(r), np.linalg.norm(u))
    print("%.6e" % (np.linalg.norm(e) / (s if s >= 1e-300 else 1.0)))
    if "--stats" in sys.argv[3:]:
        vmax = np.linalg.norm(v.reshape(-1, 6)[:, :3], axis=1).max() if v.size % 6 == 0 else np.abs(v).max()
        print("contacts %d, with r_N > 0: %d, vmax %.3g" % (nc, int((r[:, 0] > 0).sum()), vmax))


if __name__ == "__main__":
    main()
