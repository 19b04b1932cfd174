import sys, re, math
for f in sys.argv[1:]:
    res=[];its=[]
    for l in open(f):
        m=re.match(r'step (\d+)/70 .* (converged|max-iter|time-limit) it=(\d+) res=([0-9.e+-]+)',l)
        if m:
            its.append(int(m.group(3)))
            if int(m.group(1))>=30: res.append(float(m.group(4)))
    print(f, 'printed steps', len(its), 'steps>=30 geo-mean residual %.3e'%math.exp(sum(map(math.log,res))/len(res)), 'n', len(res))
