"""The fair baseline of ipm_then_nncg.py's polish: nncg 100 sweeps from the
guess, then a fresh nncg (its conjugate direction restarted) from that r,
as the polish after the IPM is.  usage: restart_baseline.py STEP..."""
import sys, time
sys.path.insert(0, '/work/wt-piles4/python/build/lib.linux-x86_64-cpython-311')
import fricon
for step in sys.argv[1:]:
    path = step if '/' in step else '/tmp/s18/p1/pile-0000%s.hdf5' % step
    p, g = fricon.read(path, guess=True)
    pre = fricon.solve(p, solver='nncg', tol=1e-12, max_iter=100, r0=g['r'])
    t = time.process_time()
    post = fricon.solve(p, solver='nncg', tol=1e-4, max_iter=30000, time_limit=120, r0=pre.r)
    print('step %s: nncg 100 then nncg restarted: %s %d sweeps cpu %.2f' %
          (step, post.status, post.iterations, time.process_time() - t), flush=True)
