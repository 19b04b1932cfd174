# M + H D H' of seed 7's step 60 with a random positive diagonal D
# (10^-2..10^4), upper triangle written to A.bin for fact.c.
import numpy as np, scipy.sparse as sp
exec(open('an.py').read().split('nc=len(mu)')[0])
rng=np.random.default_rng(1)
D=sp.diags(10**rng.uniform(-2,4,H.shape[1]))
A=(M+H@D@H.T).tocsc(); A.sort_indices()
A=sp.triu(A).tocsc(); A.sort_indices()
print(A.shape,A.nnz)
with open('A.bin','wb') as f:
    np.array([A.shape[0],A.nnz],dtype=np.int64).tofile(f)
    A.indptr.astype(np.int32).tofile(f); A.indices.astype(np.int32).tofile(f); A.data.tofile(f)
