"""Reference solution of a pile step: nncg from the .sol file's r to tol,
long; writes STEM.ref.npz (r, v, residual).  usage: ref.py STEP TOL SECONDS"""
import sys, numpy as np, time
sys.path.insert(0, '/work/main/python/build/lib.linux-x86_64-cpython-311')
import fricon
step, tol, secs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
path = '/tmp/s18/p1/pile-0000%s.hdf5' % step
p = fricon.read(path)
r = np.loadtxt(path + '.sol', comments='#', max_rows=p.nc)[:, :3].ravel()
t = time.process_time()
res = fricon.solve(p, solver='nncg', tol=tol, time_limit=secs, max_iter=10**7, r0=r)
print(step, res.status, res.iterations, '%.3e' % res.residual, 'cpu %.1f' % (time.process_time() - t), flush=True)
np.savez('/tmp/piles4-ref-%s.npz' % step, r=res.r, v=res.v, residual=res.residual)
