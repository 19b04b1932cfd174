#!/usr/bin/env python3
"""Read a problem, solve it with three solvers, plot their convergence.

    .venv/bin/python3 examples/python/convergence.py [PROBLEM] [--out PNG]
                      [--solvers nsgs,nsn-ac,admm] [--tol 1e-10]

Each solver's error per iteration (the progress callback of fc_options,
recorded by fricon.solve(..., history=True)) is plotted with matplotlib
to a PNG (default convergence.png).
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

import fricon  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problem", nargs="?",
                    default=os.path.join(HERE, "..", "Capsules-i122-1617.dat"))
    ap.add_argument("--solvers", default="nsgs,nsn-ac,admm")
    ap.add_argument("--tol", type=float, default=1e-10)
    ap.add_argument("--max-iter", type=int, default=2000)
    ap.add_argument("--out", default="convergence.png")
    a = ap.parse_args()

    p = fricon.read(a.problem)
    print(f"{a.problem}: {p.kind_name}, {p.nc} contacts")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in a.solvers.split(","):
        res = fricon.solve(p, solver=name, tol=a.tol, max_iter=a.max_iter, history=True)
        its, errs = res.history
        print(f"  {name:10s} {res.status:10s} residual {res.residual:.2e} "
              f"{res.iterations:5d} iterations {res.seconds:.3f} s")
        ax.semilogy(its, errs, marker="." if len(its) < 60 else None,
                    label=f"{name} ({res.status}, {res.seconds:.3f} s)")
    ax.axhline(a.tol, color="grey", linestyle=":", linewidth=1, label=f"tol {a.tol:g}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("error (SPEC measure)")
    ax.set_title(f"{p.name or os.path.basename(a.problem)}: {p.kind_name}, nc = {p.nc}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
