# usage: bench/family_table.py ORACLE_CSVS... -- BEFORE_CSVS... -- AFTER_CSVS...  (per-family tables of auto against the oracle, from bench/families.sh results.csv)
import csv,sys,math,collections,re
args=sys.argv[1:]
i=args.index('--'); j=args.index('--',i+1)
groups=[args[:i],args[i+1:j],args[j+1:]]
def load(files,only_auto=None):
    d=collections.defaultdict(dict)
    import os
    for f in files:
        if not os.path.exists(f): continue
        for r in csv.DictReader(open(f)):
            if only_auto is True and r['solver']!='auto': continue
            if only_auto is False and r['solver']=='auto': continue
            d[r['problem']][r['solver']]=r
    return d
orc=load(groups[0],False); bef=load(groups[1],True); aft=load(groups[2],True)
def ok(r): return r is not None and r['status']=='converged'
fams=collections.OrderedDict()
for p in sorted(orc):
    f=p.split('-n')[0] if '-n' in p else p.split('-s')[0]
    fams.setdefault(f,[]).append(p)
print("| family | problems | oracle reached | auto reached before / after | auto <= 2x before / after | max ratio before / after | geometric mean before / after |")
print("|---|---:|---:|---:|---:|---:|---:|")
T=dict(n=0,orr=0,ab=0,aa=0,w2=[0,0],mx=[0,0],lg=[[],[]],base=0)
for f,ps in fams.items():
    n=len(ps); orr=0; ab=aa=0; w2=[0,0]; mx=[0,0]; lg=[[],[]]; base=0
    for p in ps:
        o=[float(r['seconds']) for s,r in orc[p].items() if ok(r)]
        rb=bef.get(p,{}).get('auto'); ra=aft.get(p,{}).get('auto')
        ab+=ok(rb); aa+=ok(ra)
        if not o: continue
        orr+=1; t=min(o)
        nc=int(list(orc[p].values())[0]['nc'])
        for k,r in enumerate((rb,ra)):
            x=float(r['seconds'])/t if ok(r) else math.inf
            if nc>=100:
                w2[k]+= x<=2
            mx[k]=max(mx[k],x)
            if x<math.inf: lg[k].append(math.log(max(x,1e-12)))
        base+= nc>=100
    for k,v in (('n',n),('orr',orr),('ab',ab),('aa',aa),('base',base)): T[k]+=v
    for k in (0,1):
        T['w2'][k]+=w2[k]; T['mx'][k]=max(T['mx'][k],mx[k]); T['lg'][k]+=lg[k]
    g=[math.exp(sum(l)/len(l)) if l else float('nan') for l in lg]
    pc=[100*w/base if base else float('nan') for w in w2]
    fm=lambda x: 'inf' if x==math.inf else '%.2f'%x
    print("| %s | %d | %d | %d / %d | %.0f%% / %.0f%% | %s / %s | %.2f / %.2f |"%(f,n,orr,ab,aa,pc[0],pc[1],fm(mx[0]),fm(mx[1]),g[0],g[1]))
g=[math.exp(sum(l)/len(l)) if l else float('nan') for l in T['lg']]
pc=[100*w/T['base'] if T['base'] else float('nan') for w in T['w2']]
fm=lambda x: 'inf' if x==math.inf else '%.2f'%x
print("| all | %d | %d | %d / %d | %.0f%% / %.0f%% | %s / %s | %.2f / %.2f |"%(T['n'],T['orr'],T['ab'],T['aa'],pc[0],pc[1],fm(T['mx'][0]),fm(T['mx'][1]),g[0],g[1]))
