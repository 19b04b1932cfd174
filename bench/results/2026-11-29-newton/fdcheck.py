# FORM=cont (natural map, the default) or FORM=ac (Alart-Curnier)
import os, sys, importlib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
globals().update({k: v for k, v in vars(importlib.import_module(os.environ.get('FORM', 'cont'))).items() if not k.startswith('__')})
r0, v0 = load(start); z = np.concatenate([v0, r0]); th=th0
J = jac(z, th); g = resid(z, th)
rng=np.random.default_rng(1)
for h in [1e-4,1e-6,1e-8]:
    d = rng.standard_normal(z.size)
    fd = (resid(z+h*d,th)-g)/h; an = J@d
    print(h, np.linalg.norm(fd-an)/np.linalg.norm(an), np.linalg.norm((fd-an)[:nv]), np.linalg.norm((fd-an)[nv:]))
h=1e-9; d = rng.standard_normal(z.size)
fd = (resid(z+h*d,th)-g)/h; an = J@d
e=((fd-an)[nv:]).reshape(-1,3); en=np.linalg.norm(e,axis=1)
o=np.argsort(-en)[:10]
u = Ht @ z[:nv] + w
y = z[nv:].reshape(-1, 3) - rho[:, None] * uhat(u, th)
# the columns below are the natural map's cases (inside, polar, side), with either FORM
_, inside, polar, mid = projK(y)
print('n bad >1e-3:', (en>1e-3*np.linalg.norm(an)/np.sqrt(nc)).sum())
for c in o: print(c, en[c], inside[c], polar[c], mid[c], y[c], np.linalg.norm(u.reshape(-1,3)[c,1:]), mu[c])
