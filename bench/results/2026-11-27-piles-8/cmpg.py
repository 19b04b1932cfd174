import numpy as np, sys, glob
d=sys.argv[1]
for k in range(2,60):
    try:
        g=[np.fromfile(f'{d}/guess-{k}-mode{m}.bin').reshape(-1,3) for m in range(3)]
    except FileNotFoundError: continue
    g0,g1,g2=g
    nz=np.linalg.norm(g0,axis=1)>0
    dt=np.linalg.norm(g0[:,1:]-g1[:,1:],axis=1); tt=np.linalg.norm(g0[:,1:],axis=1)
    dn=np.abs(g0[:,0]-g1[:,0])
    # contacts whose tangential part turned by > 30 deg
    c=(g0[:,1:]*g1[:,1:]).sum(1)/np.maximum(tt*np.linalg.norm(g1[:,1:],axis=1),1e-300)
    big=(tt>1e-3*np.abs(g0[:,0]).max())
    print(k, 'nc',len(g0),'warm',nz.sum(), 'rel diff all %.3e'%(np.linalg.norm(g0-g1)/np.linalg.norm(g0)),
      'T %.3e'%(np.linalg.norm(dt)/np.linalg.norm(tt)), 'N %.3e'%(np.linalg.norm(dn)/np.linalg.norm(g0[:,0])),
      'turned>30deg %d of %d'%(((c<np.cos(np.pi/6))&big).sum(), big.sum()), 'proj diff %.3e'%(np.linalg.norm(g2-g1)/np.linalg.norm(g1)))
