# Medians per phase of phase_timers.py's TPH lines (one detection per
# step): 1 thread, 2 threads (each thread, the larger, the mean), and the
# critical path: the sum over phases of the larger thread's CPU (the
# chunks: also the mean, a dynamic schedule's share on an idle machine).
# usage: python3 phases_summary.py FILE
import re, statistics as st, sys
rows = {1: [], 2: []}
for l in open(sys.argv[1]):
    if not re.match(r't[12] ', l): continue
    t = int(l[1]); parts = re.findall(r'(\d+):([\d.]+)/([\d.]+)', l)
    rows[t].append({int(k): (float(a), float(b)) for k, a, b in parts})
names = {0:'rad/spd',1:'median',2:'sizes',3:'classify',4:'cells+hit',5:'starts+fast',6:'place',7:'chunks',8:'offsets',9:'copy',12:'prep',13:'fork'}
tot = {1:0, 2:0, 'bal':0, 'sum2':0}
for k in sorted(names):
    one = st.median(r[k][0] for r in rows[1])
    a = st.median(r[k][0] for r in rows[2]); b = st.median(r[k][1] for r in rows[2])
    m = st.median(max(r[k]) for r in rows[2]); s = st.median(sum(r[k]) / 2 for r in rows[2])
    tot[1] += one; tot[2] += m; tot['bal'] += s if k == 7 else m; tot['sum2'] += a + b
    print(f"{names[k]:11s} 1 thread {one:7.3f}   2 threads {a:7.3f}/{b:7.3f} max {m:7.3f} mean {s:7.3f}")
print("sum of medians (ms, the step's detection): 1 thread %.3f, 2 threads both %.3f, crit %.3f, balanced %.3f: ratio %.2f / %.2f"
      % (tot[1], tot['sum2'], tot[2], tot['bal'], tot[1]/tot[2], tot[1]/tot['bal']))
