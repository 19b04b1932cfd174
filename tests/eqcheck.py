#!/usr/bin/python3
"""Independent checker for problems with equality constraints (SPEC
sections 1-3: FClib's M3DFC with V, R, s and GM3DFC with G, b), which
shared/tools/fccheck.py does not read.

usage:
  eqcheck.py PROBLEM SOLUTION [--file-v]
      prints "ERROR DYNAMICS EQUALITY": the contact measure of SPEC section
      2 with u = W r + V lambda + q (local) or u = H^T v + w (global), the
      dynamics residual ||M v - H r - G lambda - f|| / max(1, ||f||) (0 for
      a local problem) and the equality residual ||V^T r + R lambda + s|| /
      max(1, ||s||) or ||G^T v + b|| / max(1, ||b||).  v is recomputed as
      M^-1 (H r + G lambda + f) (as `fricon check` does) unless --file-v:
      then the solution file's v is used.
  eqcheck.py make SRC OUT SOL K SEED [--local] [--separated]
      a problem with K equality rows from the global FClib file SRC: G holds
      the normal columns of H for the first contacts and random sparse
      columns, b = -G^T M^-1 (G lambda0 + f) for a random lambda0, so that
      r = 0, lambda0 meets the dynamics and the equalities exactly; with
      --separated w is raised so that every contact separates and (r = 0,
      lambda0) is an exact solution.  SOL receives that (r = 0, u, v,
      lambda0) in the solution format.  With --local OUT holds the reduced
      local problem (W, V, R, q, s computed here with dense algebra).

PROBLEM: FClib HDF5 (/fclib_local with V, R (optional), vectors/s, or
/fclib_global with G, vectors/b).  SOLUTION: SPEC section 3's text format
with its "# v n=N" (global, optional) and "# lambda p=P" sections."""
import os
import shutil
import sys
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "shared", "tools"))
import fccheck  # noqa: E402  (error: the contact measure of SPEC section 2)


def mat(g):
    """An FClib matrix group: triplet (nz >= 0; i rows, p columns), CSC (-1), CSR (-2)."""
    m, n, nz = (int(np.array(g[k]).ravel()[0]) for k in ("m", "n", "nz"))
    p, i, x = (np.array(g[k]).ravel() for k in ("p", "i", "x"))
    if nz >= 0:
        return sp.coo_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n)).tocsr()
    compressed = sp.csc_matrix if nz == -1 else sp.csr_matrix
    return sp.csr_matrix(compressed((x, i, p), shape=(m, n)))


def read_problem(path):
    import h5py
    f = h5py.File(path, "r")
    if "fclib_local" in f:
        g = f["fclib_local"]; v = g["vectors"]
        P = {"kind": "local", "d": int(np.array(g["spacedim"]).ravel()[0]), "W": mat(g["W"]),
             "q": np.array(v["q"]).ravel(), "mu": np.array(v["mu"]).ravel()}
        p = 0
        if "V" in g:
            P["V"] = mat(g["V"]); p = P["V"].shape[1]
            P["R"] = mat(g["R"]) if "R" in g else sp.csr_matrix((p, p))
            P["s"] = np.array(v["s"]).ravel()
        P["p"] = p
        return P
    g = f["fclib_global"]; v = g["vectors"]
    P = {"kind": "global", "d": int(np.array(g["spacedim"]).ravel()[0]), "M": mat(g["M"]),
         "H": mat(g["H"]), "f": np.array(v["f"]).ravel(), "w": np.array(v["w"]).ravel(),
         "mu": np.array(v["mu"]).ravel(), "p": 0}
    if "G" in g:
        P["G"] = mat(g["G"]); P["b"] = np.array(v["b"]).ravel(); P["p"] = P["G"].shape[1]
    return P


def read_solution(path, P):
    """r, v (None when absent) and lambda (zeros when absent)."""
    d, nc = P["d"], len(P["mu"])
    lines = [l.strip() for l in open(path) if l.strip()]
    r = np.zeros(d * nc)
    k = 1
    for a in range(nc):
        r[d * a:d * a + d] = [float(x) for x in lines[k].split()[:d]]
        k += 1
    v, lam = None, np.zeros(P["p"])
    while k < len(lines):
        head = lines[k].split()
        count = int(head[2].split("=")[1])
        vals = np.array([float(x) for x in lines[k + 1:k + 1 + count]])
        if head[1] == "v":
            v = vals
        elif head[1] == "lambda":
            lam = vals
        k += 1 + count
    return r, v, lam


def residuals(P, r, v, lam):
    d, mu = P["d"], P["mu"]
    nc = len(mu)
    if P["kind"] == "local":
        u = P["W"] @ r + P["q"]
        if P["p"]:
            u = u + P["V"] @ lam
            t = P["V"].T @ r + P["R"] @ lam + P["s"]
            eq = np.linalg.norm(t) / max(1.0, np.linalg.norm(P["s"]))
        else:
            eq = 0.0
        return fccheck.error(d, nc, None, P["q"], mu, r, u=u, scale=P["q"]), 0.0, eq
    rhs = P["H"] @ r + P["f"]
    if P["p"]:
        rhs = rhs + P["G"] @ lam
    if v is None:
        v = spla.splu(sp.csc_matrix(P["M"])).solve(rhs)
    u = P["H"].T @ v + P["w"]
    dyn = np.linalg.norm(P["M"] @ v - rhs) / max(1.0, np.linalg.norm(P["f"]))
    eq = 0.0
    if P["p"]:
        eq = np.linalg.norm(P["G"].T @ v + P["b"]) / max(1.0, np.linalg.norm(P["b"]))
    return fccheck.error(d, nc, None, P["w"], mu, r, u=u, scale=P["w"]), dyn, eq


def write_csr(g, name, A):
    A = sp.csr_matrix(A)
    A.sort_indices()
    if A.nnz == 0:    # one explicit zero: no empty dataset
        A = sp.csr_matrix((np.zeros(1), np.zeros(1, "i4"), np.r_[0, np.ones(A.shape[0], "i4")]),
                          shape=A.shape)
    h = g.create_group(name)
    for key, val in (("nzmax", A.nnz), ("m", A.shape[0]), ("n", A.shape[1]), ("nz", -2)):
        h[key] = np.array([val], "i4")
    h["p"] = A.indptr.astype("i4"); h["i"] = A.indices.astype("i4"); h["x"] = A.data.astype("f8")


def write_solution(path, d, nc, r, u, v, lam):
    with open(path, "w") as out:
        out.write("# fricon solution d=%d nc=%d\n" % (d, nc))
        for a in range(nc):
            out.write(" ".join("%.17g" % x for x in np.r_[r[d * a:d * a + d], u[d * a:d * a + d]]) + "\n")
        if v is not None:
            out.write("# v n=%d\n" % len(v) + "".join("%.17g\n" % x for x in v))
        out.write("# lambda p=%d\n" % len(lam) + "".join("%.17g\n" % x for x in lam))


def make(src, out, sol, K, seed, local, separated):
    import h5py
    rng = np.random.default_rng(seed)
    P = read_problem(src)
    M, H, f, w, d = P["M"].tocsc(), P["H"].tocsc(), P["f"], P["w"].copy(), P["d"]
    n, m = H.shape
    nc = m // d
    cols = [H[:, d * a].toarray().ravel() for a in range(min(K // 2, nc))]
    while len(cols) < K:
        c = np.zeros(n)
        c[rng.choice(n, size=min(3, n), replace=False)] = rng.uniform(-1, 1, size=min(3, n))
        cols.append(c)
    G = sp.csc_matrix(np.array(cols).T)
    lam = rng.uniform(-1, 1, size=K)
    lu = spla.splu(M)
    v = lu.solve(G @ lam + f)
    b = -(G.T @ v)
    u = H.T @ v + w
    if separated:
        for a in range(nc):
            w[d * a] += max(0.0, -u[d * a]) + 1.0
        u = H.T @ v + w
    shutil.copy(src, out) if not local else None
    if local:
        Hd, Gd = H.toarray(), G.toarray()
        MiH, MiG = lu.solve(Hd), lu.solve(Gd)
        Mif = lu.solve(f)
        with h5py.File(out, "w") as F:
            g = F.create_group("fclib_local")
            g["spacedim"] = np.array([d], "i4")
            write_csr(g, "W", Hd.T @ MiH)
            write_csr(g, "V", Hd.T @ MiG)
            write_csr(g, "R", Gd.T @ MiG)
            vec = g.create_group("vectors")
            vec["q"] = Hd.T @ Mif + w
            vec["s"] = Gd.T @ Mif + b
            vec["mu"] = P["mu"]
        write_solution(sol, d, nc, np.zeros(m), u, None, lam)
        return
    with h5py.File(out, "r+") as F:
        g = F["fclib_global"]
        write_csr(g, "G", G)
        g["vectors"]["b"] = b
        del g["vectors"]["w"]
        g["vectors"]["w"] = w
    write_solution(sol, d, nc, np.zeros(m), u, v, lam)


def main():
    args = sys.argv[1:]
    if args and args[0] == "make":
        make(args[1], args[2], args[3], int(args[4]), int(args[5]), "--local" in args, "--separated" in args)
        return
    P = read_problem(args[0])
    r, v, lam = read_solution(args[1], P)
    e, dyn, eq = residuals(P, r, v if "--file-v" in args else None, lam)
    print("%.6e %.6e %.6e" % (e, dyn, eq))


if __name__ == "__main__":
    main()
