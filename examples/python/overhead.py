#!/usr/bin/env python3
"""The cost of solving through Python against the command (docs/python.md).

    .venv/bin/python3 examples/python/overhead.py PROBLEM [--solver nsgs]
                      [--max-iter 200] [--runs 5] [--fricon build/fricon]

Alternates `fricon solve PROBLEM --json` and fricon.solve on the same
problem with the same options, and compares the solve alone: the JSON's
seconds against result.seconds (both measured by fc_solve), and the wall
time of the fricon.solve call (the Python side included: options by name,
arrays, the GIL released and taken back).  Prints each run and the medians.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import types

import fricon

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("problem")
    ap.add_argument("--solver", default="nsgs")
    ap.add_argument("--max-iter", type=int, default=200)
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--fricon", default=os.path.join(HERE, "..", "..", "build", "fricon"))
    ap.add_argument("--fresh", action="store_true",
                    help="each Python solve in a new process too, as each command's")
    a = ap.parse_args()

    p = fricon.read(a.problem)
    print(f"{a.problem}: {p.kind_name}, nc = {p.nc}, solver {a.solver}, "
          f"max_iter {a.max_iter}, tol {a.tol:g}{', fresh processes' if a.fresh else ''}")
    cli_s, py_s, py_wall = [], [], []
    for run in range(a.runs):
        out = subprocess.run([a.fricon, "solve", a.problem, "--json", "--solver", a.solver,
                              "--max-iter", str(a.max_iter), "--tol", repr(a.tol)],
                             capture_output=True, text=True, check=False)
        cli = json.loads(out.stdout)
        if a.fresh:
            code = ("import fricon, json, sys, time; p = fricon.read(sys.argv[1]); "
                    "t = time.perf_counter(); res = fricon.solve(p, solver=sys.argv[2], "
                    "max_iter=int(sys.argv[3]), tol=float(sys.argv[4])); "
                    "w = time.perf_counter() - t; print(json.dumps(dict(status=res.status, "
                    "iterations=res.iterations, residual=res.residual, seconds=res.seconds, "
                    "wall=w)))")
            out = subprocess.run([sys.executable, "-c", code, a.problem, a.solver,
                                  str(a.max_iter), repr(a.tol)],
                                 capture_output=True, text=True, check=True)
            d = json.loads(out.stdout)
            res, wall = types.SimpleNamespace(**d), d["wall"]
        else:
            t0 = time.perf_counter()
            res = fricon.solve(p, solver=a.solver, max_iter=a.max_iter, tol=a.tol)
            wall = time.perf_counter() - t0
        assert res.iterations == cli["iterations"] and res.status == cli["status"]
        cli_s.append(cli["seconds"])
        py_s.append(res.seconds)
        py_wall.append(wall)
        print(f"  run {run + 1}: command {cli['seconds']:.4f} s, python {res.seconds:.4f} s "
              f"(call {wall:.4f} s), {res.iterations} iterations, {res.status}, "
              f"residual {res.residual:.3e}")
    for what, f in (("median", statistics.median), ("best", min)):
        mc, mp, mw = f(cli_s), f(py_s), f(py_wall)
        print(f"{what}: command {mc:.4f} s, python {mp:.4f} s ({100 * (mp / mc - 1):+.1f}%), "
              f"python call {mw:.4f} s ({100 * (mw / mc - 1):+.1f}%)")


if __name__ == "__main__":
    main()
