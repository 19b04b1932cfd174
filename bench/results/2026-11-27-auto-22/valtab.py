import csv,collections,math,sys
fams=['arch','chute','column','disks-wall','hopper','pile','tower','wall']
print('| run | auto reached / oracle reached | within 2x (100+ contacts) | max | geometric mean | done-when |')
print('|---|---|---|---|---|---|')
for run in ['global-warm','global-cold','local-warm','local-cold']:
    rows=list(csv.DictReader(open(f'validation-{run}.csv')))
    by=collections.defaultdict(dict)
    for r in rows: by[r['problem']][r['solver']]=r
    n=w2=0;lg=[];reached=oreached=0;mx=0
    for p,d in by.items():
        a=d.get('auto')
        best=min((float(r['seconds']) for s,r in d.items() if s!='auto' and r['status']=='converged'),default=None)
        if not a or best is None: continue
        oreached+=1; reached+=a['status']=='converged'
        t=float(a['seconds'])/best if a['status']=='converged' else math.inf
        if int(a['nc'])>=100: n+=1; w2+=t<=2
        lg.append(math.log(t)); mx=max(mx,t)
    gm=math.exp(sum(lg)/len(lg)); ok=reached==oreached and w2>=0.9*n and mx<=5 and gm<=1.3
    print(f"| {run.replace('-',', ')} | {reached} / {oreached} | {w2} / {n} ({100*w2/n:.0f}%) | {mx:.2f} | {gm:.2f} | {'met' if ok else 'not met'} |")
