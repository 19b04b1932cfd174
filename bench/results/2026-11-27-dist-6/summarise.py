"""Per run of ab.sh / dist_scale.sh output: binary, ranks, JSON seconds,
the solver's CPU split (iterations, own work, setup, gather; the busiest
rank's) and each rank's process CPU (user + sys), and the process CPU not
in the solver's split (the read, MPI_Init, fc_solve's checks, exit).
usage: summarise.py FILE"""
import re, sys
run = None
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"#### round (\d+), (\w+)", line)
    if m: rnd, b = m.groups()
    m = re.match(r"== ([12]) rank\(s\),.*load average: ([0-9.]+)", line)
    if m:
        run = {"round": rnd, "bin": b, "np": int(m.group(1)), "load": m.group(2), "cpu": [], "walls": []}
        rows.append(run)
    m = re.search(r"layout ([0-9.]+) s \(rank 0's partition", line)
    if m and run: run["layout"] = float(m.group(1))
    m = re.search(r"waited up to ([0-9.]+) s", line)
    if m and run: run["waited"] = float(m.group(1))
    m = re.search(r"after (\d+) iterations.*?, ([0-9.]+) s \(distributed iterations: ([0-9.]+) s CPU.*?measuring ([0-9.]+) s.*?setup ([0-9.]+) s CPU, gather and finish ([0-9.]+)", line)
    if m and run:
        run.update(it=int(m.group(1)), sec=float(m.group(2)), iters=float(m.group(3)), own=float(m.group(4)),
                   setup=float(m.group(5)), gather=float(m.group(6)))
    m = re.search(r"least busy, rank \d, ([0-9.]+) s", line)
    if m and run: run["least"] = float(m.group(1))
    m = re.search(r"contacts: \d+ on rank 0, (\d+) on the busiest rank", line)
    if m and run: run["nbusy"] = int(m.group(1))
    m = re.match(r"rank cpu ([0-9.]+) s user ([0-9.]+) s sys ([0-9.]+) s wall", line)
    if m and run: run["cpu"].append(float(m.group(1)) + float(m.group(2))); run["walls"].append(float(m.group(3)))
    m = re.match(r"mpirun wall ([0-9.]+)", line)
    if m and run: run["mpirun"] = float(m.group(1))
print("round bin  np load  sweeps seconds own    (least) iters  setup  layout waited  proc-cpu(ranks)   outside-split  mpirun-wall  contacts-busiest")
for r in rows:
    if "sec" not in r: continue
    out = [c - r["iters"] - r["setup"] - r["gather"] for c in r["cpu"]]
    least = "%.3f" % r["least"] if "least" in r else "  -  "
    print(f'{r["round"]:>5} {r["bin"]:4} {r["np"]:>2} {r["load"]:>5} {r["it"]:>6} {r["sec"]:7.3f} {r["own"]:6.3f} ({least}) {r["iters"]:6.3f} '
          f'{r["setup"]:6.3f} {r.get("layout", 0):6.3f} {r.get("waited", 0):6.3f}  '
          f'{" ".join("%.2f" % c for c in r["cpu"]):16} {" ".join("%.2f" % o for o in out):14} {r.get("mpirun", 0):6.2f}'
          f'       {r.get("nbusy", 0)}')
