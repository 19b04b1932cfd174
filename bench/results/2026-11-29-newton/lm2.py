import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ac import *
r0, v0 = load(start); z = np.concatenate([v0, r0]); th=th0
g=resid(z,th); ng=np.linalg.norm(g); lam=1e-3
print('start |G| %.3e err_th %.3e'%(ng,spec_err(z[nv:],z[:nv],th)))
for it in range(40):
    t0=time.time()
    J=jac(z,th); N=J.shape[0]; rhs=np.concatenate([-g,np.zeros(N)])
    while True:
        K=sp.bmat([[sp.identity(N),J],[J.T,-lam*sp.identity(N)]],format='csc')
        lu=sla.splu(K,permc_spec='COLAMD'); d=lu.solve(rhs)[N:]; zn=z+d; gn=resid(zn,th); nn=np.linalg.norm(gn)
        if nn<ng: lam=max(lam/3,1e-10); break
        lam*=10
        if lam>1e6: break
    if nn>=ng: print('stuck'); break
    z,g,ng=zn,gn,nn
    print('it %d lam %.1e |G| %.3e err_th %.3e err1 %.3e (%.1fs)'%(it,lam,ng,spec_err(z[nv:],z[:nv],th),spec_err(z[nv:],z[:nv]),time.time()-t0),flush=True)
