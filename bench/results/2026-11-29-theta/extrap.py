import numpy as np
exec(open('an.py').read().split('for fn in')[0])
def errth(r,v,th):
    u=H.T@v+w; R=r.reshape(-1,3); U=u.reshape(-1,3)
    uh=U.copy(); uh[:,0]+=th*mu*np.linalg.norm(U[:,1:],axis=1)
    e=R-proj(R-uh,mu); s=max(np.linalg.norm(w),np.linalg.norm(r),np.linalg.norm(u))
    return np.linalg.norm(e)/s
S={}
for th in (0.25,0.5,0.75,0.85):
    r,u,v=load('th%s.sol'%th); S[th]=(r,v)
    print('theta',th,'own err %.2e'%errth(r,v,th),'Coulomb err %.2e'%errth(r,v,1.0))
def lin(a,b,t=1.0):
    (ra,va),(rb,vb)=S[a],S[b]; c=(t-b)/(b-a)
    return rb+c*(rb-ra), vb+c*(vb-va)
def proj_r(r):
    R=r.reshape(-1,3).copy(); return proj(R,mu).ravel()
for a,b in ((0.5,0.75),(0.75,0.85),(0.25,0.5)):
    r,v=lin(a,b); print('linear from',a,b,'Coulomb err %.2e'%errth(r,v,1.0),' with r projected on K (v kept): %.2e'%errth(proj_r(r),v,1.0))
# quadratic through 0.5,0.75,0.85
ths=[0.5,0.75,0.85]
def lag(t):
    out_r=0; out_v=0
    for i,ti in enumerate(ths):
        L=np.prod([(t-tj)/(ti-tj) for j,tj in enumerate(ths) if j!=i])
        out_r=out_r+L*S[ti][0]; out_v=out_v+L*S[ti][1]
    return out_r,out_v
r,v=lag(1.0); print('quadratic 0.5,0.75,0.85: %.2e'%errth(r,v,1.0))
r1,u1,v1=load('nn20k.sol'); print('nncg best (20k sweeps): %.2e'%errth(r1,v1,1.0))
for th in (0.5,0.75,0.85):
    print('|r(th)-r_nncg| %.2f  |v(th)-v_nncg| %.2f'%(np.linalg.norm(S[th][0]-r1),np.linalg.norm(S[th][1]-v1)))
