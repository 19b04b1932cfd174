"""Solvers started from a solution file's r: usage PROBLEM SOLUTION SOLVER..."""
import sys, numpy as np, time
sys.path.insert(0, '/work/main/python/build/lib.linux-x86_64-cpython-311')
import fricon
p = fricon.read(sys.argv[1])
nc = p.nc
r = np.loadtxt(sys.argv[2], comments='#', max_rows=nc)[:, :3].ravel()
for solver in sys.argv[3:]:
    t = time.time()
    res = fricon.solve(p, solver=solver, tol=1e-4, time_limit=20, r0=r)
    print(solver, "from the file's r:", res.status, res.iterations, "%.3e" % res.residual, "%.1fs" % (time.time()-t), flush=True)
