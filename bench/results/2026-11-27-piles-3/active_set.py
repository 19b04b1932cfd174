import sys, numpy as np
sys.path.insert(0, '/work/shared/tools')
import fccheck as F
d, nc, W, q, mu, scale = F.read_problem(sys.argv[1])
def status(sol):
    r = F.read_solution(sol, d, nc).reshape(nc,3)
    rn = r[:,0]; rt = np.linalg.norm(r[:,1:],axis=1)
    st = np.where(rn <= 1e-9*rn.max(), 0, np.where(rt >= 0.999*mu*rn, 2, 1))
    return st, r
ref, rr = status(sys.argv[-1])
for s in sys.argv[2:-1]:
    st, r = status(s)
    agree = (st == ref)
    print(s, "agree %.1f%%" % (agree.mean()*100), "open/stick/slide:", [(st==k).sum() for k in range(3)], "ref", [(ref==k).sum() for k in range(3)],
          "mismatch matrix", [[int(((st==a)&(ref==b)).sum()) for b in range(3)] for a in range(3)],
          "||r-r*||/||r*|| %.3g" % (np.linalg.norm(r-rr)/np.linalg.norm(rr)))
