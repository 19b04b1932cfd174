import csv,sys,math,collections
rows=collections.defaultdict(dict)
tol=float(sys.argv[1]) if len(sys.argv)>1 else 1e-4
for f in sys.argv[2:]:
    for r in csv.DictReader(open(f)):
        rows[r['problem']][r['solver']]=r
def ok(r): return r['status']=='converged'
print("%-36s %5s %9s %9s %6s %8s %8s %6s %s"%("problem","nc","auto","oracle","ratio","nncg_it","alt/sw","orcl","auto_it"))
for p in sorted(rows):
    d=rows[p]
    others={s:float(r['seconds']) for s,r in d.items() if s!='auto' and ok(r)}
    orc=min(others.values()) if others else float('inf')
    osol=min(others,key=others.get) if others else '-'
    a=d.get('auto')
    at=float(a['seconds']) if a and ok(a) else float('inf')
    n=d.get('nncg')
    alt={s:v for s,v in others.items() if s!='nncg'}
    altt=min(alt.values()) if alt else float('inf')
    sw=float(n['seconds'])/max(1,int(n['iterations'])) if n else float('nan')
    print("%-36s %5s %9.4f %9.4f %6.2f %8s %8.0f %6s %s"%(p,d[list(d)[0]]['nc'],at,orc,at/orc if orc<float('inf') else float('nan'),
        (n['iterations']+('' if ok(n) else '!')) if n else '-',altt/sw if sw==sw else float('nan'),osol[:6],a['iterations'] if a else '-'))
