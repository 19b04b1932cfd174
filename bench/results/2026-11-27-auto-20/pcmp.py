#!/usr/bin/python3
# compare paired variants: per variant reached, ratio to an oracle (min other solver from ORC csvs, may be none), and pairwise ratios
import csv,sys,math,collections,glob
pair=sys.argv[1]; orcs=sys.argv[2:]
orc={}
for f in orcs:
    for r in csv.DictReader(open(f)):
        if r['solver']!='auto' and r['status']=='converged':
            t=float(r['seconds']); orc[r['problem']]=min(orc.get(r['problem'],1e9),t)
d=collections.defaultdict(dict); nc={}
for r in csv.DictReader(open(pair)):
    d[r['problem']][r['variant']]=r; nc[r['problem']]=int(r['nc'] or 0)
vs=list(next(iter(d.values())).keys())
ok=lambda r: r['status']=='converged'
for v in vs:
    reach=sum(ok(x[v]) for x in d.values()); lg=[];w2=0;n=0;mx=0
    for p,x in d.items():
        if p not in orc: continue
        t=float(x[v]['seconds'])/orc[p] if ok(x[v]) else math.inf
        if nc[p]>=100: n+=1; w2+=t<=2
        mx=max(mx,t)
        if t<math.inf: lg.append(math.log(t))
    print(f"{v:8s} reached {reach}/{len(d)}  within2x {w2}/{n}  max {mx:.2f}  gm {math.exp(sum(lg)/max(1,len(lg))):.3f}")
b=vs[0]
for v in vs[1:]:
    print(f"-- {v} vs {b}: changed problems")
    for p,x in sorted(d.items()):
        A,B=x[b],x[v]
        if A['status']!=B['status'] or A['iterations']!=B['iterations']:
            ta,tb=float(A['seconds']),float(B['seconds'])
            print(f"  {p:42s} {A['status'][:5]} {A['iterations']:>5} {ta:8.4f} | {B['status'][:5]} {B['iterations']:>5} {tb:8.4f}  x{tb/ta:.2f}  orc {orc.get(p,float('nan')):.4f}")
