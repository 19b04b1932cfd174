# Alart-Curnier form of the theta-law (Coulomb for u~ = u - (1-theta) mu |u_T| e_N),
# semismooth Newton on (v, r), SuperLU, with natural-parameter continuation in theta.
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cont
from cont import *

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

# cont.py's Newton and continuation driver, run on the functions above.
cont.resid, cont.jac = resid, jac

if __name__ == '__main__':
    cont.run()
