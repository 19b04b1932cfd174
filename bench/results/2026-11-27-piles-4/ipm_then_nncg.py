"""Issue 33, lead 1(b) over several pile steps, in one run: nncg alone from
the simulator's guess to 1e-4, against nncg 100 sweeps -> gipm's cone QP with
the shift fixed from that iterate (ipm.shift_start = 1, one QP) -> nncg from
the QP's r to 1e-4.  IPM variants: full QP (default refinement 3), the same
with ipm.refine = 1, and stopped after 8 interior-point steps.
usage: ipm_then_nncg.py STEP...   (files /tmp/s18/p1/pile-0000STEP.hdf5, or paths)
With FRICON_VARIANTS=2: the IPM stopped after 8 and 5 steps, and nncg from
nncg's 100-sweep iterate perturbed by a relative 1e-8 (how much the sweeps
to 1e-4 vary from a start changed at round-off level).
CPU: process seconds (one thread)."""
import os, sys, time, numpy as np
sys.path.insert(0, '/work/wt-piles4/python/build/lib.linux-x86_64-cpython-311')
import fricon

def run(p, solver, r0, tol=1e-4, max_iter=None, tl=120, **opt):
    t = time.process_time()
    res = fricon.solve(p, solver=solver, tol=tol, max_iter=max_iter, time_limit=tl, r0=r0,
                       options=opt)
    return res, time.process_time() - t

PRE = 100
for step in sys.argv[1:]:
    path = step if '/' in step else '/tmp/s18/p1/pile-0000%s.hdf5' % step
    p, g = fricon.read(path, guess=True)
    alone, c_alone = run(p, 'nncg', g['r'], max_iter=30000)
    pre, c_pre = run(p, 'nncg', g['r'], tol=1e-12, max_iter=PRE)
    print('step %s nc %d: nncg alone %s %d sweeps %.3e cpu %.2f | nncg %d: %.3e cpu %.2f' %
          (step, p.nc, alone.status, alone.iterations, alone.residual, c_alone, PRE, pre.residual, c_pre),
          flush=True)
    variants = (('full QP', {}), ('refine 1', {'ipm.refine': 1}), ('8 steps', {'max_iter': 8}))
    if os.environ.get('FRICON_VARIANTS') == '2':
        variants = (('full QP', {}), ('8 steps', {'max_iter': 8}), ('5 steps', {'max_iter': 5}))
        for seed in (1, 2):
            rng = np.random.default_rng(seed)
            rp = pre.r * (1 + 1e-8 * rng.standard_normal(pre.r.size))
            post, c_post = run(p, 'nncg', rp, max_iter=30000)
            print('   nncg from nncg %d perturbed 1e-8 (seed %d): %s %d sweeps cpu %.2f' %
                  (PRE, seed, post.status, post.iterations, c_post), flush=True)
        post, c_post = run(p, 'nncg', pre.r, max_iter=30000)
        print('   nncg from nncg %d unperturbed: %s %d sweeps cpu %.2f' % (PRE, post.status, post.iterations, c_post), flush=True)
    for label, opt in variants:
        mi = opt.pop('max_iter', None)
        q, c_q = run(p, 'gipm', pre.r, tol=1e-6, max_iter=mi, ipm_shift_start=1, ipm_max_outer=1,
                     ipm_max_inner=200, **opt)
        post, c_post = run(p, 'nncg', q.r, max_iter=30000)
        tot = c_pre + c_q + c_post
        print('   %-9s ipm %2d steps %.3e cpu %.2f (%.3f/step) -> nncg %s %5d sweeps cpu %.2f | total cpu %.2f = %.2fx nncg alone' %
              (label, q.iterations, q.residual, c_q, c_q / max(1, q.iterations), post.status, post.iterations,
               c_post, tot, tot / c_alone), flush=True)
