import h5py, sys, numpy as np
def walk(g, out, pre=""):
    for k in g:
        o = g[k]
        if isinstance(o, h5py.Group): walk(o, out, pre + "/" + k)
        else: out[pre + "/" + k] = o[()]
    for k, v in g.attrs.items(): out[pre + "@" + k] = v
def load(f):
    out = {}
    with h5py.File(f, "r") as h: walk(h, out)
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
bad = [k for k in set(a) | set(b) if k not in a or k not in b or not np.array_equal(np.asarray(a[k]), np.asarray(b[k]))]
print("same" if not bad else "DIFF " + " ".join(sorted(bad)[:8]))
