import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ac import *
r0, v0 = load(start); z = np.concatenate([v0, r0]); th=th0
g=resid(z,th); print('G1 %.3e G2 %.3e'%(np.linalg.norm(g[:nv]),np.linalg.norm(g[nv:])))
G2=g[nv:].reshape(-1,3); e=np.linalg.norm(G2,axis=1); print('top G2', np.sort(e)[-5:], 'rho range', rho.min(), rho.max())
J0=jac(z,th,0)
for dl in [1e-4,1e-6,1e-8]:
    J=jac(z,th,dl); lu=sla.splu(J,permc_spec='COLAMD'); dz=-lu.solve(g)
    print('delta',dl,'|dz|',np.linalg.norm(dz),'lin res',np.linalg.norm(J0@dz+g)/np.linalg.norm(g))
    for t in [1,0.5,0.1,0.01]:
        print('   t',t,np.linalg.norm(resid(z+t*dz,th)), spec_err(z[nv:]+t*dz[nv:], z[:nv]+t*dz[:nv], th))
