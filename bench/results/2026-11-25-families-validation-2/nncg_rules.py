import glob,math,os
def load(f):
    t=[tuple(map(float,l.split())) for l in open(f) if l.strip()]
    return [(int(a),b) for a,b in t]
def rate_rule(tr,tol,J=100,P=10):
    best=math.inf; hist=[]
    for it,e in tr:
        best=min(best,e); hist.append((it,best))
        if best<=tol: return None
        if it<J: continue
        ref=min(hist,key=lambda h:abs(2*h[0]-it))
        if ref[0]>=it: continue
        if not(best>0 and ref[1]>0): return it
        r=math.log(best/ref[1])/(it-ref[0])
        if not r<0: return it
        need=math.log(tol/best)/r
        if need>=P*it: return it
    return None
def plateau_rule(tr,tol,J=100):
    pb=math.inf; pit=0
    for it,e in tr:
        if e<=tol: return None
        if e<0.9*pb: pb=e; pit=it
        if it>=J and it-pit>=max(pit,J): return it
    return None
def and_rule(tr,tol,J=100,P=10):
    # stop when both say stop at that point (evaluate each independently per prefix)
    for k in range(len(tr)):
        it=tr[k][0]
        if tr[k][1]<=tol: return None
        a=rate_rule(tr[:k+1],tol,J,P); b=plateau_rule(tr[:k+1],tol,J)
        if a is not None and b is not None: return it
    return None
rules={'rate50p3':lambda t,tol:rate_rule(t,tol,50,3),'rate100p10':lambda t,tol:rate_rule(t,tol,100,10),
       'plat100':lambda t,tol:plateau_rule(t,tol,100),'plat200':lambda t,tol:plateau_rule(t,tol,200),
       'and100':lambda t,tol:and_rule(t,tol,100,10)}
res={k:[0,0,0] for k in rules}  # cut, wasted sweeps on failures, n fail
for f in sorted(glob.glob('/tmp/autonncg/traj/*.txt')):
    tr=load(f)
    if not tr: continue
    tol=1e-8 if 'shared' in f else 1e-4
    conv=tr[-1][1]<=tol
    line=os.path.basename(f)[:40].ljust(40)+(' conv@%d'%tr[-1][0] if conv else ' FAIL(%d)'%tr[-1][0]).ljust(13)
    for k,fn in rules.items():
        s=fn(tr,tol)
        if conv and s is not None: res[k][0]+=1
        if not conv: res[k][1]+= (s if s else tr[-1][0]); res[k][2]+=1
        line+=' %s=%s'%(k,s)
    print(line)
print(res)
