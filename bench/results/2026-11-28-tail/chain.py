import sys, fricon
N = int(sys.argv[1]); N1s = [int(x) for x in sys.argv[2].split(',')]
for f in sys.argv[3:]:
    p, g = fricon.read(f, guess=True)
    r0 = g['r'] if g else None
    out = [f.split('/')[-1]]
    a = fricon.solve(p, "nncg", tol=1e-4, max_iter=N, r0=r0)
    out.append("nncg %s %d %.3e" % (a.status[:4], a.iterations, a.residual))
    b = fricon.solve(p, "nncg", tol=1e-4, max_iter=N, r0=r0, options={"nncg.accel": 0})
    out.append("gs %s %d %.3e" % (b.status[:4], b.iterations, b.residual))
    for N1 in N1s:
        c = fricon.solve(p, "nncg", tol=1e-4, max_iter=N1, r0=r0)
        if c.converged:
            out.append("n%d+gs conv %d %.3e" % (N1, c.iterations, c.residual)); continue
        d = fricon.solve(p, "nncg", tol=1e-4, max_iter=N - N1, r0=c.r, options={"nncg.accel": 0})
        out.append("n%d+gs %s %d %.3e" % (N1, d.status[:4], N1 + d.iterations, d.residual))
    print(" | ".join(out), flush=True)
