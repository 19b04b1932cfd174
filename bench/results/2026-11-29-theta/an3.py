import numpy as np, sys
exec(open('an.py').read().split('for fn in')[0])
def status(fn):
    r,u,v=load(fn); R=r.reshape(-1,3); U=(H.T@v+w).reshape(-1,3)
    Rn=R[:,0]; rt=np.linalg.norm(R[:,1:],axis=1)
    st=np.where(Rn<=1e-10,0,np.where(rt>=0.999*mu*Rn,2,1))
    e,s=err(r,U.ravel()); return st,np.sum(e**2,axis=1),R
s0,e0,R0=status(sys.argv[1])
for fn in sys.argv[2:]:
    s1,e1,R1=status(fn)
    ch=s0!=s1
    print(fn,'status changed',ch.sum(),'err share of changed (new)',e1[ch].sum()/e1.sum(),'|dR|',np.linalg.norm(R1-R0),'|R|',np.linalg.norm(R0))
    for a in range(3):
        print('   ',[(a,b,int(((s0==a)&(s1==b)).sum())) for b in range(3) if a!=b])
