import sys, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as sla
exec(open(__file__.replace('_ref', '')).read().split('print("start"')[0])
rref = F.read_solution(sys.argv[4], d, nc)
for label, rs in [("active set of the 1e-4 solution, residual there", rref), ("same active set, residual at the iterate", r)]:
    R = rref.reshape(nc,3); rn = R[:,0]; rt = np.linalg.norm(R[:,1:],axis=1)
    openc = rn <= 1e-9*rn.max(); slide = (~openc) & (rt >= 0.999*mu*rn); stick = (~openc) & ~slide
    u = W @ rs + q
    idx = np.array([3*a+k for a in np.where(stick)[0] for k in range(3)], int); sl = np.where(slide)[0]
    nS=len(idx); nL=len(sl); That = R[sl,1:]/rt[sl][:,None]
    rows = list(idx); cols = list(range(nS)); vals=[1.0]*nS
    for k,a in enumerate(sl):
        rows += [3*a,3*a+1,3*a+2]; cols += [nS+k]*3; vals += [1.0, mu[a]*That[k,0], mu[a]*That[k,1]]
    B = sp.csr_matrix((vals,(rows,cols)), shape=(3*nc,nS+nL))
    crow = list(idx)+[3*a for a in sl]
    C = sp.csr_matrix((np.ones(len(crow)),(np.arange(len(crow)),crow)), shape=(len(crow),3*nc))
    A = (C@W@B).tocsr(); b = -(C@u)
    sol = sla.lsmr(A, b, atol=1e-8, btol=1e-8, maxiter=5000); x = sol[0]
    print(label, "||b||", np.linalg.norm(b), "lsmr its", sol[2], "relres %.2e" % (np.linalg.norm(A@x-b)/np.linalg.norm(b)))
    if rs is r:
        dr = B@x
        for t in [1.0, 0.5, 0.25]:
            print("  t", t, "err %.3e" % err(proj(r+t*dr)), "unprojected %.3e" % err(r+t*dr))
