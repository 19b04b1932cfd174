"""Issue 33, lead 1: gipm's cone QP with the De Saxce shift fixed from a
given r (ipm.shift_start = 1), on a global pile step.
usage: fixed_shift.py STEP [REF.npz]
Prints, in one run: nncg alone from the simulator's guess (sweeps and CPU
to 1e-4; its iterates after 100 and 300 sweeps); (a) one interior-point
solve with s from the reference r; (b) the same with s from nncg's 100- and
300-sweep iterates, then nncg started from the IPM's r (sweeps, CPU to
1e-4), and gipm's outer shift updates from there.  CPU: process seconds."""
import sys, time, numpy as np
sys.path.insert(0, '/work/wt-piles4/python/build/lib.linux-x86_64-cpython-311')
import fricon
step = sys.argv[1]
path = '/tmp/s18/p1/pile-0000%s.hdf5' % step
p, g = fricon.read(path, guess=True)
r_guess = g['r']
print('step', step, 'nc', p.nc, flush=True)

def run(label, solver, r0, tol=1e-4, max_iter=None, tl=120, **opt):
    t = time.process_time()
    res = fricon.solve(p, solver=solver, tol=tol, max_iter=max_iter, time_limit=tl, r0=r0,
                       options=opt, history=True)
    cpu = time.process_time() - t
    h = res.history
    cross = next((it for it, e in zip(*h) if e <= 1e-4), None) if h else None
    print('%-40s %-9s it %6d  err %.3e  cpu %6.2f  (cpu/it %.4f)  first<=1e-4 at %s' %
          (label, res.status, res.iterations, res.residual, cpu, cpu / max(1, res.iterations), cross),
          flush=True)
    return res, cpu

def ipm_trace(res):
    h = res.history
    print('    gipm trace:', ' '.join('%d:%.2e' % (it, e) for it, e in zip(*h)) + '  [' + res.message + ']', flush=True)

n100, _ = run('nncg 100 sweeps from guess', 'nncg', r_guess, tol=1e-12, max_iter=100)
n300, _ = run('nncg 300 sweeps from guess', 'nncg', r_guess, tol=1e-12, max_iter=300)
run('nncg to 1e-4 from guess', 'nncg', r_guess, max_iter=20000)

starts = []
if len(sys.argv) > 2:
    ref = np.load(sys.argv[2])
    print('reference residual %.3e' % fricon.residual(p, ref['r']))
    starts.append(('ref', ref['r']))
starts += [('nncg100', n100.r), ('nncg300', n300.r)]
for name, r0 in starts:
    res, cpu = run('gipm fixed shift from %s, 1 QP' % name, 'gipm', r0, tol=1e-6,
                   ipm_shift_start=1, ipm_max_outer=1, ipm_max_inner=200)
    ipm_trace(res)
    run('  nncg from that r', 'nncg', res.r, max_iter=20000)
    res2, _ = run('gipm from %s, outer updates' % name, 'gipm', r0, tol=1e-4,
                  ipm_shift_start=1, ipm_max_outer=30)
    ipm_trace(res2)
