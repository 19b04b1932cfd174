# per-family tables of auto against the oracle (the fastest other solver that converged) in validation-RUN.csv
import csv,collections,math
for run in ['global-warm','global-cold','local-warm','local-cold']:
    rows=list(csv.DictReader(open(f'validation-{run}.csv')))
    by=collections.defaultdict(dict)
    for r in rows: by[r['problem']][r['solver']]=r
    fam=collections.defaultdict(list)
    for p,d in by.items():
        a=d.get('auto')
        best=min((float(r['seconds']) for s,r in d.items() if s!='auto' and r['status']=='converged'),default=None)
        if not a or best is None: continue
        t=float(a['seconds'])/best if a['status']=='converged' else math.inf
        fam[p.split('-n')[0]].append((t,a['status']=='converged'))
    print(f'\n### {run}\n\n| family | problems | auto reached | within 2x | max | geometric mean |\n|---|---:|---:|---:|---:|---:|')
    allt=[]
    for f in sorted(fam)+['all']:
        ts=allt if f=='all' else fam[f]
        if f!='all': allt+=ts
        n=len(ts); w=sum(t<=2 for t,_ in ts); mx=max(t for t,_ in ts); gm=math.exp(sum(math.log(t) for t,_ in ts)/n)
        print(f'| {f} | {n} | {sum(c for _,c in ts)} | {100*w/n:.0f}% | {mx:.2f} | {gm:.2f} |')
