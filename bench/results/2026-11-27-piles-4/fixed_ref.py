"""Lead 1(a): gipm's cone QP with the shift from a reference r, one QP.
usage: fixed_ref.py STEP REF.npz"""
import sys, time, numpy as np
sys.path.insert(0, '/work/wt-piles4/python/build/lib.linux-x86_64-cpython-311')
import fricon
p = fricon.read('/tmp/s18/p1/pile-0000%s.hdf5' % sys.argv[1])
ref = np.load(sys.argv[2])
print('reference residual %.3e' % fricon.residual(p, ref['r']), flush=True)
for opt in ({}, {'ipm.refine': 1}):
    t = time.process_time()
    res = fricon.solve(p, solver='gipm', tol=1e-7, time_limit=200, r0=ref['r'], history=True,
                       options=dict({'ipm.shift_start': 1, 'ipm.max_outer': 1, 'ipm.max_inner': 200}, **opt))
    c = time.process_time() - t
    print(opt, res.status, res.iterations, '%.3e' % res.residual, 'cpu %.2f (%.3f/step)' % (c, c / res.iterations), res.message)
    print('   trace:', ' '.join('%d:%.2e' % (a, b) for a, b in zip(*res.history)), flush=True)
    R = res.r.reshape(-1, 3); Rr = ref['r'].reshape(-1, 3)
    print('   ||r - r_ref|| / ||r_ref|| = %.3f' % (np.linalg.norm(res.r - ref['r']) / np.linalg.norm(ref['r'])), flush=True)
