import csv,math
rows=list(csv.DictReader(open('/tmp/s21/probe/out.csv')))
lu={r['file']:r for r in csv.DictReader(open('/tmp/s21/probe/lu.csv'))}
by={}
for r in rows: by.setdefault(r['file'],{})[r['solver']]=r
print(f"{'file':45s} {'mu':>4s} {'nc':>5s} | {'mdp it':>6s} {'mdpCPU':>7s} {'sweep ms':>8s} {'mdp/it sweeps':>13s} | {'kind':7s} {'LU f/2nnz':>9s} {'cholNewton':>10s} | auto/best")
for f,d in by.items():
    if 'ipm-mdp' not in d or 'nsgs' not in d or f not in lu: continue
    m=d['ipm-mdp']; n=d['nsgs']; L=lu[f]
    try:
        nit=int(n['iters']); ncpu=float(n['cpu'])-0.03; mit=int(m['iters']); mcpu=float(m['cpu'])-0.03
    except: continue
    sw=max(ncpu,1e-3)/nit
    per=mcpu/max(mit,1)/sw
    nnz=float(L['nnzW']) if L['nnzW'] else float('nan')
    fl=float(L['lu_flops']) if L['lu_flops'] else float('nan')
    ok={s:float(v['cpu']) for s,v in d.items() if v['status']=='converged' and s!='auto'}
    a=d.get('auto')
    rat=float(a['cpu'])/min(ok.values()) if ok and a and a['status']=='converged' else float('nan')
    print(f"{f.split('/')[-1][:45]:45s} {d['nsgs']['mu']:>4s} {d['nsgs']['nc']:>5s} | {mit:6d}{m['status'][0]} {mcpu:7.2f} {sw*1e3:8.3f} {per:13.0f} | {L['lu_kind']:7s} {fl/(2*nnz):9.0f} {float(L['chol_newton_sweeps'] or 'nan'):10.0f} | {rat:.2f}")
