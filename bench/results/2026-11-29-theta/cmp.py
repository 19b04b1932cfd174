import numpy as np, sys, itertools, h5py
src=open('an.py').read().split('for fn in')[0].replace("/tmp/s32/pile7/pile-000060.hdf5",sys.argv[1])
exec(src)
exec(open('extrap.py').read().split('S={}')[0].split("exec(open('an.py')")[1].split('\n',1)[1])
S={fn:load(fn) for fn in sys.argv[2:]}
for fn in S: print(fn,'err %.3e'%errth(S[fn][0],S[fn][2],1.0),'|v| %.1f |r| %.1f'%(np.linalg.norm(S[fn][2]),np.linalg.norm(S[fn][0])))
for a,b in itertools.combinations(S,2):
    va=S[a][2].reshape(-1,6); vb=S[b][2].reshape(-1,6); d=va-vb
    dw=np.linalg.norm(d[:,3:],axis=1); wa=np.linalg.norm(va[:,3:],axis=1)
    print(a,b,'|dv| %.2f trans %.2f (of %.2f) rot %.2f (of %.2f), median |dw| %.3f vs |w| %.3f; |dr| %.2f; average err %.2e'%(np.linalg.norm(d),np.linalg.norm(d[:,:3]),np.linalg.norm(va[:,:3]),np.linalg.norm(d[:,3:]),np.linalg.norm(va[:,3:]),np.median(dw),np.median(wa),np.linalg.norm(S[a][0]-S[b][0]),errth((S[a][0]+S[b][0])/2,(S[a][2]+S[b][2])/2,1.0)))
