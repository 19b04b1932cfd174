#!/usr/bin/python3
"""Independent checker for rolling friction (d = 5), which
shared/tools/fccheck.py does not handle (it treats d = 5 as one 5D Coulomb
cone and ignores mu_r).

usage: rfccheck.py PROBLEM SOLUTION      prints the SPEC error, exit 0
PROBLEM: Siconos .dat rolling problem (d = 5: W, q, mu, mu_r) or FClib
.hdf5 (fclib_local or fclib_global_rolling groups, vectors mu and mu_r).
SOLUTION: the text format of SPEC section 3 (one contact per line).

Matrix parsing is fccheck.py's (independent of the project); the rolling
cone projection is written here, by an exact method different from the one
of tests/check.h (which bisects): the projection of x onto
K = {||x_T|| <= mu x_N, ||x_R|| <= mu_r x_N} has x_N = argmin over n >= 0
of the convex piecewise quadratic
    phi(n) = (n - x_N)^2 + [t - mu n]_+^2 + [s - mu_r n]_+^2,
t = ||x_T||, s = ||x_R||, whose minimiser is either 0, a kink (t/mu, s/mu_r)
or the stationary point of one of its four quadratic pieces: all are
evaluated and the smallest phi wins."""
import os
import sys
import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "shared", "tools"))
import fccheck  # noqa: E402  (read_matrix, _reduce_global)


def read_dat(path):
    lines = iter(open(path).read().splitlines(True))
    head = []
    while len(head) < 2:
        head += next(lines).split()
    d, nc = int(head[0]), int(head[1])
    res = fccheck.read_matrix(lines)
    W, rest = (res if isinstance(res, tuple) else (res, ""))
    toks = rest.split() + [t for line in lines for t in line.split()]
    m = W.shape[0]
    vals = [float(x) for x in toks]
    q = np.array(vals[:m])
    mu = np.array(vals[m:m + nc])
    mu_r = np.array(vals[m + nc:m + 2 * nc])
    if d != 5 or len(mu_r) != nc:
        raise SystemExit("not a local rolling problem (d = %d, %d mu_r)" % (d, len(mu_r)))
    return d, nc, sp.csr_matrix(W), q, mu, mu_r, q


def read_hdf5(path):
    import h5py
    f = h5py.File(path, "r")

    def mat(g):
        nz = int(np.array(g["nz"]).ravel()[0])
        m = int(np.array(g["m"]).ravel()[0])
        n = int(np.array(g["n"]).ravel()[0])
        p = np.array(g["p"]).ravel(); i = np.array(g["i"]).ravel(); x = np.array(g["x"]).ravel()
        if nz == -1:
            return sp.csc_matrix((x, i, p), shape=(m, n)).tocsr()
        if nz == -2:
            return sp.csr_matrix((x, i, p), shape=(m, n))
        return sp.csr_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n))
    for name in ("fclib_local_rolling", "fclib_local"):
        if name in f:
            g = f[name]
            W = mat(g["W"]); v = g["vectors"]
            q = np.array(v["q"]).ravel()
            return 5, len(np.array(v["mu"]).ravel()), W, q, np.array(v["mu"]).ravel(), \
                np.array(v["mu_r"]).ravel(), q
    g = f["fclib_global_rolling"]
    v = g["vectors"]
    M = mat(g["M"]); H = mat(g["H"])
    fv = np.array(v["f"]).ravel(); w = np.array(v["w"]).ravel()
    W, q = fccheck._reduce_global(M, H, fv, w)
    mu = np.array(v["mu"]).ravel()
    return 5, len(mu), W, q, mu, np.array(v["mu_r"]).ravel(), w


def project(x, mu, mu_r):
    t = np.linalg.norm(x[1:3]); s = np.linalg.norm(x[3:5])
    pieces = ((t, mu), (s, mu_r))

    def phi(n):
        return (n - x[0]) ** 2 + sum(max(0.0, c - k * n) ** 2 for c, k in pieces)
    cands = [0.0]
    for c, k in pieces:
        if k > 0:
            cands.append(c / k)
    for active in ((), (0,), (1,), (0, 1)):
        num = x[0] + sum(pieces[a][1] * pieces[a][0] for a in active)
        den = 1.0 + sum(pieces[a][1] ** 2 for a in active)
        cands.append(num / den)
    n = min((max(c, 0.0) for c in cands), key=phi)
    out = np.zeros(5)
    out[0] = n
    for (lo, hi), (c, k) in zip(((1, 3), (3, 5)), pieces):
        if c > k * n:
            out[lo:hi] = x[lo:hi] * (k * n / c) if c > 0 else 0.0
        else:
            out[lo:hi] = x[lo:hi]
    return out


def error(nc, W, q, mu, mu_r, r, scale):
    u = W @ r + q
    e = np.zeros_like(r)
    for a in range(nc):
        ra = r[5 * a:5 * a + 5]; ua = u[5 * a:5 * a + 5].copy()
        ua[0] += mu[a] * np.linalg.norm(ua[1:3]) + mu_r[a] * np.linalg.norm(ua[3:5])
        e[5 * a:5 * a + 5] = ra - project(ra - ua, mu[a], mu_r[a])
    s = max(np.linalg.norm(scale), np.linalg.norm(r), np.linalg.norm(u))
    return np.linalg.norm(e) / (s if s >= 1e-300 else 1.0)


def main():
    path = sys.argv[1]
    reader = read_hdf5 if path.endswith((".hdf5", ".h5")) else read_dat
    d, nc, W, q, mu, mu_r, scale = reader(path)
    rows = [l for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
    r = np.zeros(5 * nc)
    for a in range(nc):
        r[5 * a:5 * a + 5] = [float(x) for x in rows[a].split()[:5]]
    print("%.3e" % error(nc, W, q, mu, mu_r, r, scale))


if __name__ == "__main__":
    main()
