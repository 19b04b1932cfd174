#!/usr/bin/python3
"""Every option at either end of its accepted range, run by the solvers of
its family on a bundled problem under a short time limit: each run is
accepted (never refused), ends with a status (no crash), and ends within
the limit plus a margin for the process itself (not timed finely: the run
ends).  Ranges are read from `fricon options`.

usage: option_ends.py FRICON EXAMPLES"""
import os
import json
import re
import concurrent.futures
import subprocess
import sys
import time

BIN, EXAMPLES = sys.argv[1], sys.argv[2]
LIMIT = 0.5          # seconds given to each run
MARGIN = 2.0         # process start, reading, a loaded machine
F3 = f"{EXAMPLES}/Capsules-i122-1617.dat"
F2 = f"{EXAMPLES}/FrictionContactProblem00394.dat"
FAMILY = {
    "nsgs": ["nsgs", "psor"], "nsn": ["nsn-ac", "nsn-fb", "nsn-hybrid"],
    "ipm": ["ipm", "ipm-mdp", "gipm"], "admm": ["admm"], "lcp": ["lemke", "enum"],
    "cpg": ["cpg"], "fp": ["fpp", "eg", "vi-fpp", "vi-eg", "hp", "dsfp"], "prox": ["prox"],
    "tresca": ["tfp", "pfp"], "stick": ["stick"], "aclm": ["aclm"], "apgd": ["apgd", "apgd-ccp"],
    "nncg": ["nncg"],
}
INT_MAX = 2147483647


def ends(rng):
    """The two ends of a range as `fricon options` prints it, just inside
    an open end."""
    m = re.search(r"in (-?\d+)\.\.(-?\d+)", rng)
    if m:
        return [m.group(1), m.group(2)]
    m = re.search(r"in ([(\[])([-\w.+]+), ([-\w.+]+)([)\]])", rng)
    if m:
        lo = -1e300 if m.group(2) == "-inf" else float(m.group(2))
        hi = float(m.group(3))
        if m.group(1) == "(":
            lo += max(1e-12, abs(lo) * 1e-9)
        if m.group(4) == ")":
            hi -= max(1e-12, abs(hi) * 1e-9)
        return [repr(lo), repr(hi)]
    m = re.search(r"an integer >= (-?\d+)", rng)
    if m:
        return [m.group(1), str(INT_MAX)]
    return []


# the environment fricon's restart would set (app/main.c): no restart then
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", OMP_THREAD_LIMIT="1")


def run_case(name, value, solver):
    """One run; a failure's line, or None."""
    problem = F2 if solver in ("lemke", "enum", "cpg") else F3
    cmd = [BIN, "solve", problem, "--solver", solver, "--time-limit", str(LIMIT),
           "--set", f"{name}={value}", "--json"]
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=ENV)
    except subprocess.TimeoutExpired:
        return f"FAIL: {name}={value} {solver}: still running after 30 s"
    wall = time.time() - t0
    limit = LIMIT
    if name == "time_limit":          # the option overrides --time-limit
        limit = float(value) if float(value) > 0 else 30
    ok = r.returncode in (0, 1)
    if ok:
        status = json.loads(r.stdout)["status"]
        ok = status in ("converged", "max-iter", "time-limit", "diverged", "error", "stalled")
    if not ok or wall > limit + MARGIN:
        return f"FAIL: {name}={value} {solver}: exit {r.returncode}, {wall:.2f} s: {r.stderr.strip()[:200]}"
    return None


failures = runs = 0
jobs = []
pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)   # two runs at a time
for line in subprocess.run([BIN, "options"], capture_output=True, text=True, check=True).stdout.splitlines():
    name = line.split()[0]
    rng = line[line.rfind("(a"):]
    if "solver name" in rng:
        continue
    values = ends(rng)
    if not values:
        print(f"FAIL: {name}: range not understood: {rng}")
        failures += 1
        continue
    solvers = FAMILY.get(name.split(".")[0], ["auto", "nsgs"])
    for value in values:
        for solver in solvers:
            jobs.append(pool.submit(run_case, name, value, solver))
for job in jobs:
    runs += 1
    line = job.result()
    if line:
        print(line)
        failures += 1
print(f"option_ends: {max(runs - failures, 0)} passed, {failures} failed")
sys.exit(1 if failures else 0)
