"""What the diagnosis scripts of this folder share: the problem (through
shared/tools/fccheck.py), the SPEC error per contact, the projection on the
cones, each contact's status, and the active-set system (bases B, C)."""
import sys
import numpy as np
import scipy.sparse as sp
sys.path.insert(0, '/work/shared/tools')
import fccheck as F


def load(path):
    d, nc, W, q, mu, scale = F.read_problem(path)
    return d, nc, sp.csr_matrix(W), q, mu, scale


def contact_errors(W, q, mu, scale, r):
    """(SPEC error, e) with e the natural-map residual, m-vector."""
    nc = len(mu)
    u = W @ r + q
    e = np.zeros_like(r)
    for a in range(nc):
        ra = r[3 * a:3 * a + 3]; ua = u[3 * a:3 * a + 3].copy()
        ua[0] += mu[a] * np.linalg.norm(ua[1:3])
        e[3 * a:3 * a + 3] = ra - F.proj_cone(ra - ua, mu[a], 3)
    s = max(np.linalg.norm(scale), np.linalg.norm(r), np.linalg.norm(u))
    return np.linalg.norm(e) / s, e


def project(r, mu):
    out = r.copy()
    for a in range(len(mu)):
        out[3 * a:3 * a + 3] = F.proj_cone(r[3 * a:3 * a + 3], mu[a], 3)
    return out


def status(r, mu):
    """Boolean masks (open, stick, slide): open r_N = 0, slide ||r_T|| >= 0.999 mu r_N."""
    R = r.reshape(-1, 3); rn = R[:, 0]; rt = np.linalg.norm(R[:, 1:], axis=1)
    openc = rn <= 1e-9 * rn.max()
    slide = (~openc) & (rt >= 0.999 * mu * rn)
    return openc, (~openc) & ~slide, slide


def active_system(r, mu):
    """B maps the unknowns (3 per sticking contact, r_N per sliding one with
    r_T = mu r_N along its present direction) to dr; C selects the equations
    (u = 0 sticking, u_N = 0 sliding)."""
    nc = len(mu); R = r.reshape(nc, 3)
    _, stick, slide = status(r, mu)
    idx = [3 * a + k for a in np.where(stick)[0] for k in range(3)]
    sl = np.where(slide)[0]
    that = R[sl, 1:] / np.linalg.norm(R[sl, 1:], axis=1)[:, None]
    rows, cols, vals = list(idx), list(range(len(idx))), [1.0] * len(idx)
    for k, a in enumerate(sl):
        rows += [3 * a, 3 * a + 1, 3 * a + 2]; cols += [len(idx) + k] * 3
        vals += [1.0, mu[a] * that[k, 0], mu[a] * that[k, 1]]
    B = sp.csr_matrix((vals, (rows, cols)), shape=(3 * nc, len(idx) + len(sl)))
    crow = idx + [3 * a for a in sl]
    C = sp.csr_matrix((np.ones(len(crow)), (np.arange(len(crow)), crow)), shape=(len(crow), 3 * nc))
    return B, C


def read_H(path):
    """H (n x m, CSC) of a global FClib file (tests/gfccheck.py's reader)."""
    import h5py
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'tests'))
    from gfccheck import matrix
    return matrix(h5py.File(path)['fclib_global']['H']).tocsc()
