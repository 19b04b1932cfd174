"""Steps that zero u on a fixed active set (LSMR on the reduced system),
damped and projected on the cones: usage PROBLEM SOL [REFSOL].  Without
REFSOL the active set is the iterate's, three times; with it, REFSOL's once."""
import sys, numpy as np, scipy.sparse.linalg as sla
import common as C
d, nc, W, q, mu, scale = C.load(sys.argv[1])
r = C.F.read_solution(sys.argv[2], d, nc)
ref = C.F.read_solution(sys.argv[3], d, nc) if len(sys.argv) > 3 else None
err = lambda x: C.contact_errors(W, q, mu, scale, x)[0]
print("start", err(r))
for it in range(1 if ref is not None else 3):
    B, S = C.active_system(ref if ref is not None else r, mu)
    A = (S @ W @ B).tocsr(); b = -(S @ (W @ r + q))
    x, _, its = sla.lsmr(A, b, atol=1e-8, btol=1e-8, maxiter=5000)[:3]
    print(f"step {it}: lsmr its {its}, ||b|| {np.linalg.norm(b):.3g}, relres {np.linalg.norm(A @ x - b) / np.linalg.norm(b):.2e}")
    dr, best = B @ x, (err(r), 0.0)
    for t in [1.0, 0.5, 0.25, 0.125, 0.0625]:
        e = err(C.project(r + t * dr, mu))
        print(f"   t={t}: err {e:.3e} (before the projection {err(r + t * dr):.3e})")
        if e < best[0]: best = (e, t)
    if best[1] > 0: r = C.project(r + best[1] * dr, mu)
    print("  kept t", best[1], "err", best[0])
