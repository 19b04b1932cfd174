import numpy as np, scipy.sparse as sp, sys, time
from scipy.optimize import linprog
exec(open('an.py').read().split('for fn in')[0])
fn=sys.argv[1] if len(sys.argv)>1 else None
if fn:
    import h5py
    f=h5py.File(fn,'r')['fclib_global']
    H=csc(f['H']); M=csc(f['M']); w=f['vectors/w'][:]; mu=f['vectors/mu'][:]
    if H.shape[0]!=M.shape[0]: H=H.T.tocsc()
    nc=len(mu)
n=H.shape[0]; Ht=H.T.tocsr()
N=Ht[0::3]; T1=Ht[1::3]; T2=Ht[2::3]
I=sp.identity(nc,format='csr'); Z=sp.csr_matrix((nc,nc))
# vars: v (n), p (nc), q (nc), t
# -(N v + wN) + mu p + mu q + t <= 0
A1=sp.hstack([-N, sp.diags(mu), sp.diags(mu), sp.csr_matrix(np.ones((nc,1)))])
b1=w[0::3]
# T1 v + w1 - p <= 0 ; -(T1 v + w1) - p <= 0
A2=sp.hstack([T1,-I,Z,sp.csr_matrix((nc,1))]); b2=-w[1::3]
A3=sp.hstack([-T1,-I,Z,sp.csr_matrix((nc,1))]); b3=w[1::3]
A4=sp.hstack([T2,Z,-I,sp.csr_matrix((nc,1))]); b4=-w[2::3]
A5=sp.hstack([-T2,Z,-I,sp.csr_matrix((nc,1))]); b5=w[2::3]
A=sp.vstack([A1,A2,A3,A4,A5]).tocsc(); b=np.concatenate([b1,b2,b3,b4,b5])
c=np.zeros(n+2*nc+1); c[-1]=-1
vb=float(sys.argv[2]) if len(sys.argv)>2 else 100.0
bounds=[(-vb,vb)]*n+[(0,None)]*(2*nc)+[(None,1.0)]
t0=time.time(); res=linprog(c,A_ub=A,b_ub=b,bounds=bounds,method=(sys.argv[3] if len(sys.argv)>3 else 'highs'))
print(fn,'status',res.status,res.message[:60],'max t = %.4g'%(-res.fun if res.status==0 else float('nan')),'time %.1f'%(time.time()-t0),'min w_N %.3g'%w[0::3].min())
