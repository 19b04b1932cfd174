"""SPEC section 2, written again in numpy for the tests: the error measure
recomputed from r (and u) independently of the library."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def _project_coulomb(x, mu):
    """Rows of x (N, 1 + nt) projected onto {||x_T|| <= mu x_N}."""
    xn = x[:, 0]
    t = np.linalg.norm(x[:, 1:], axis=1)
    out = x.copy()
    inside = t <= mu * xn
    polar = ~inside & (mu * t <= -xn)
    rest = ~inside & ~polar
    a = (xn + mu * t) / (1.0 + mu * mu)
    out[polar] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(t > 0, mu * a / np.where(t > 0, t, 1.0), 0.0)
    out[rest, 0] = a[rest]
    out[rest, 1:] = x[rest, 1:] * s[rest, None]
    return out


def _project_rolling(x, mu, mr):
    """Rows of x (N, 5) projected onto {||x_T|| <= mu x_N, ||x_R|| <= mr x_N}:
    for a normal value n the tangential parts are radially clipped, so n
    minimises the convex phi(n) = (n - xn)^2 + max(0, a - mu n)^2 +
    max(0, b - mr n)^2 over n >= 0; its minimiser is 0 or the stationary
    point of one of the four quadratics (which terms are active): take the
    candidate of least phi."""
    xn = x[:, 0]
    a = np.linalg.norm(x[:, 1:3], axis=1)
    b = np.linalg.norm(x[:, 3:5], axis=1)

    def phi(n):
        return (n - xn) ** 2 + np.maximum(0, a - mu * n) ** 2 + np.maximum(0, b - mr * n) ** 2

    best_n = np.zeros_like(xn)
    best = phi(best_n)
    for act1 in (0, 1):
        for act2 in (0, 1):
            n = (xn + act1 * mu * a + act2 * mr * b) / (1 + act1 * mu * mu + act2 * mr * mr)
            n = np.maximum(n, 0.0)
            v = phi(n)
            better = v < best
            best_n[better] = n[better]
            best[better] = v[better]
    inside = (a <= mu * xn) & (b <= mr * xn)
    out = x.copy()
    n = best_n
    with np.errstate(invalid="ignore", divide="ignore"):
        st = np.where(a > mu * n, np.where(a > 0, mu * n / np.where(a > 0, a, 1), 0.0), 1.0)
        sr = np.where(b > mr * n, np.where(b > 0, mr * n / np.where(b > 0, b, 1), 0.0), 1.0)
    out[:, 0] = n
    out[:, 1:3] *= st[:, None]
    out[:, 3:5] *= sr[:, None]
    out[inside] = x[inside]
    return out


def error(d, mu, mu_r, scale, r, u):
    """||r - P_K(r - u_hat)|| / max(||scale||, ||r||, ||u||)."""
    R = np.asarray(r, float).reshape(-1, d)
    U = np.asarray(u, float).reshape(-1, d)
    uhat = U.copy()
    uhat[:, 0] += mu * np.linalg.norm(U[:, 1:3] if d == 5 else U[:, 1:], axis=1)
    if d == 5:
        uhat[:, 0] += mu_r * np.linalg.norm(U[:, 3:5], axis=1)
        P = _project_rolling(R - uhat, mu, mu_r)
    else:
        P = _project_coulomb(R - uhat, mu)
    e = np.linalg.norm(R - P)
    s = max(np.linalg.norm(scale), np.linalg.norm(r), np.linalg.norm(u))
    if s < 1e-300:
        s = 1.0
    return e / s


def dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def local_error(p, r):
    """The measure of a local problem with u = W r + q recomputed."""
    W = p.W
    u = (W @ r) + p.q
    return error(p.d, p.mu, p.mu_r, p.q, r, u)


def global_velocity(p, r):
    M = sp.csc_matrix(p.M)
    return spla.splu(M).solve(p.H @ r + p.f)


def global_error(p, r, v=None):
    """(contact measure, dynamics residual) of a global problem at r, with
    u = H^T v + w and v = M^-1 (H r + f) unless given."""
    if v is None:
        v = global_velocity(p, r)
    u = p.H.T @ v + p.w
    e = error(p.d, p.mu, p.mu_r, p.w, r, u)
    dyn = np.linalg.norm(p.M @ v - p.H @ r - p.f) / max(1.0, np.linalg.norm(p.f))
    return e, dyn


def problem_error(p, r, v=None):
    if p.kind == "local":
        return local_error(p, r)
    return global_error(p, r, v)[0]
