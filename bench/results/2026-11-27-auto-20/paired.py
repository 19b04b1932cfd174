#!/usr/bin/python3
# paired runs of auto variants (env settings) per problem, alternating, CPU clock
# usage: paired.py OUT.csv HALF FORM START VARIANT... (VARIANT: name=ENV1=v1,ENV2=v2 or name=)
import csv,json,os,subprocess,sys
out,half,form,start=sys.argv[1:5]; variants=[]
for v in sys.argv[5:]:
    name,_,envs=v.partition('='); e={}
    for kv in filter(None,envs.split(',')):
        k,_,x=kv.partition('='); e[k]=x
    variants.append((name,e))
rows=[]
BIN=os.environ.get('BIN','/tmp/s20/fricon-x')
for man in ['/tmp/coll27','/tmp/coll27b']+(['/tmp/coll27n','/tmp/coll27c'] if half=='tuning' else []):
    for r in csv.DictReader(open(man+'/manifest.csv')):
        if r['half']==half and r['form']==form and float(r['tolerance'])>=float(os.environ.get('MINTOL','0')): rows.append((man+'/'+r['file'],r['tolerance']))
w=csv.writer(open(out,'w')); w.writerow(['problem','nc','variant','status','iterations','residual','seconds'])
for f,tol in rows:
    for name,e in variants:
        env=dict(os.environ); env.update(e)
        cmd=['nice','-n','5',e.get('BIN',BIN),'solve',f,'--tol',tol,'--time-limit','6','--set','cpu_clock=1','--json']+(['--cold'] if start=='cold' else [])
        try:
            j=json.loads(subprocess.run(cmd,env=env,capture_output=True,text=True,timeout=300).stdout)
        except Exception as ex:
            j={'nc':0,'status':'fail','iterations':0,'residual':'nan','seconds':'nan'}
        w.writerow([os.path.basename(f),j['nc'],name,j['status'],j['iterations'],j['residual'],j['seconds']])
    sys.stdout.flush()
