import h5py, numpy as np, scipy.sparse as sp
f=h5py.File('p1/pile-000036.hdf5','r'); g=f['fclib_global']
H=sp.csc_matrix((g['H/x'][()], g['H/i'][()], g['H/p'][()]), shape=(24657,12000)).tocsr()
M=sp.csc_matrix((g['M/x'][()], g['M/i'][()], g['M/p'][()]), shape=(12000,12000))
md=M.diagonal()
nc=8219
cb=[]
for a in range(nc):
    cols=set()
    for k in range(3):
        cols |= set(H.indices[H.indptr[3*a+k]:H.indptr[3*a+k+1]]//6)
    cb.append(sorted(cols))
deg=np.zeros(2000,int)
for c in cb:
    for b in c: deg[b]+=1
for a in [4480,527,4088,4883,513,3713,4080,3742,2021]:
    print(a, 'bodies', cb[a], 'masses', [round(md[6*b],3) for b in cb[a]], 'inertia', [float('%.3g'%md[6*b+3]) for b in cb[a]], 'degree', [deg[b] for b in cb[a]])
print('offdiag M nnz', (M - sp.diags(md)).count_nonzero())
