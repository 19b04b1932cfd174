"""Each contact's status (open, sticking, sliding) in several solutions
against the last one: usage PROBLEM SOL... REFSOL."""
import sys, numpy as np
import common as C
d, nc, W, q, mu, scale = C.load(sys.argv[1])
def st(sol):
    r = C.F.read_solution(sol, d, nc); o, s, l = C.status(r, mu)
    return np.where(o, 0, np.where(s, 1, 2)), r
ref, rr = st(sys.argv[-1])
for s in sys.argv[2:-1]:
    x, r = st(s)
    print(s, "agree %.1f%%" % ((x == ref).mean() * 100), "open/stick/slide:", [(x == k).sum() for k in range(3)],
          "ref", [(ref == k).sum() for k in range(3)],
          "mismatch matrix", [[int(((x == a) & (ref == b)).sum()) for b in range(3)] for a in range(3)],
          "||r-r*||/||r*|| %.3g" % (np.linalg.norm(r - rr) / np.linalg.norm(rr)))
