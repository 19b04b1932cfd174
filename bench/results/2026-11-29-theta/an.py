import h5py, numpy as np, scipy.sparse as sp, sys
f=h5py.File('/tmp/s32/pile7/pile-000060.hdf5','r')['fclib_global']
def csc(g):
    m=int(g['m'][0]); n=int(g['n'][0])
    p=g["p"][:]
    if len(p)==n+1: return sp.csc_matrix((g["x"][:],g["i"][:],p),shape=(m,n))
    return sp.csr_matrix((g["x"][:],g["i"][:],p),shape=(m,n)).tocsc()
H=csc(f['H']); M=csc(f['M']); w=f['vectors/w'][:]; mu=f['vectors/mu'][:]; fv=f['vectors/f'][:]
if H.shape[0]!=M.shape[0]: H=H.T.tocsc()
nc=len(mu)
def load(fn):
    L=[l for l in open(fn) if not l.startswith('#')]
    rows=np.array([list(map(float,l.split())) for l in L[:nc]])
    v=np.array([float(l) for l in L[nc:]])
    return rows[:,:3].ravel(), rows[:,3:].ravel(), v
def proj(x,m):
    n=x[:,0]; t=np.linalg.norm(x[:,1:],axis=1); out=x.copy()
    inside = t<=m*n
    polar = m*t<= -n
    mid=~inside&~polar
    a=(n[mid]+m[mid]*t[mid])/(1+m[mid]**2)
    out[polar]=0
    out[mid,0]=a; out[mid,1:]=(m[mid]*a/t[mid])[:,None]*x[mid,1:]
    return out
def err(r,u):
    R=r.reshape(-1,3); U=u.reshape(-1,3)
    uh=U.copy(); uh[:,0]+=mu*np.linalg.norm(U[:,1:],axis=1)
    e=R-proj(R-uh,mu)
    s=max(np.linalg.norm(w),np.linalg.norm(r),np.linalg.norm(u))
    return e,s
for fn in sys.argv[1:]:
    r,u,v=load(fn)
    u2=H.T@v+w
    e,s=err(r,u2)
    en=np.sum(e**2,axis=1)
    print(fn,'err',np.sqrt(en.sum())/s,'dyn',np.linalg.norm(M@v-H@r-fv)/max(1,np.linalg.norm(fv)))
    idx=np.argsort(-en)[:12]
    R=r.reshape(-1,3);U=u2.reshape(-1,3)
    tot=en.sum()
    # bodies of contacts
    Hc=H.tocsc()
    for c in idx:
        rows=set()
        for k in range(3):
            rows|=set(Hc.indices[Hc.indptr[3*c+k]:Hc.indptr[3*c+k+1]]//6)
        print(' c',c,'share %.3f'%(en[c]/tot),'bodies',sorted(rows),'r',np.round(R[c],5),'u',np.round(U[c],6),'|rt|/mu rn %.3f'%(np.linalg.norm(R[c,1:])/(mu[c]*R[c,0]+1e-300)))
    Rn=R[:,0]; rt=np.linalg.norm(R[:,1:],axis=1); ut=np.linalg.norm(U[:,1:],axis=1)
    openc = Rn<=1e-12*np.abs(R).max()
    bound = (~openc)&(rt>=0.999*mu*Rn)
    stick = (~openc)&~bound
    single = np.array([len(set(Hc.indices[Hc.indptr[3*c]:Hc.indptr[3*c+1]]//6))==1 for c in range(nc)])
    for name,msk in (('open',openc),('cone boundary',bound),('inside',stick),('wall/ground',single)):
        print('  %-14s n=%5d  err share %.3f'%(name,msk.sum(),en[msk].sum()/tot))
    sc=np.sort(en)[::-1]; cs=np.cumsum(sc)/tot
    print('  contacts holding 50/90%% of err^2: %d %d'%(np.searchsorted(cs,.5)+1,np.searchsorted(cs,.9)+1))
