import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ac import *
for fn,th in [(start,th0)]+[(x,1.0) for x in sys.argv[5:]]:
    r0, v0 = load(fn); z = np.concatenate([v0, r0])
    v, r, U, R, ut, un, xn, xt, rad, xs = parts(z, th)
    stick=(xn>0)&(xs<=rad); slide=(xn>0)&~stick; op=~(xn>0)
    S=np.where(stick)[0]; cols=np.concatenate([3*S,3*S+1,3*S+2])
    HS=H[:,np.sort(cols)]
    print(fn,'th',th,'stick',stick.sum(),'slide',slide.sum(),'open',op.sum(),'eqs',3*stick.sum()+slide.sum(),'dofs',nv)
    # W on the sticking contacts: singular when their constraints are redundant
    A=(HS.T@Minv@HS).tocsc()
    try:
        ev=sla.eigsh(A,k=6,sigma=0,which='LM',return_eigenvectors=False)
        print('  smallest eig of W_SS', np.sort(ev))
    except Exception as ex: print(ex)
