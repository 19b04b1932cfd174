"""fricon.solve gives the command's results (`fricon solve FILE --json
--output SOL`): same status and iterations, same residual, same r, u (and
v); the residual is recomputed here in numpy (spec.py) from r and u."""
import json
import os

import numpy as np
import pytest

import fricon
import spec
from conftest import example_problems, problem_id, run_cli, shared_problems

# auto takes from 6 to 31 s on these (docs/python.md): capped nsgs only
SLOW = {"column300-step39.hdf5", "column500-step2.hdf5", "pile-step24.hdf5"}

FILES = shared_problems() + example_problems()
CASES = []
for f in FILES:
    if os.path.basename(f) not in SLOW:
        CASES.append((f, "auto", {}))
    CASES.append((f, "nsgs", {"max_iter": 40}))
CASES += [(f, "nsgs", {"max_iter": 30, "nsgs.omega": 1.3})
          for f in FILES[:3] if os.path.basename(f) not in SLOW]


def read_solution(path, p):
    with open(path) as fh:
        lines = fh.read().splitlines()
    assert lines[0] == f"# fricon solution d={p.d} nc={p.nc}"
    rows = np.array([[float(x) for x in ln.split()] for ln in lines[1:1 + p.nc]])
    r, u = rows[:, :p.d].ravel(), rows[:, p.d:].ravel()
    v = None
    if p.kind == "global":
        assert lines[1 + p.nc] == f"# v n={p.n}"
        v = np.array([float(x) for x in lines[2 + p.nc:2 + p.nc + p.n]])
    return r, u, v


def cli_args(path, solver, opts, sol):
    args = ["solve", path, "--solver", solver, "--json", "--output", sol]
    for k, v in opts.items():
        if k == "max_iter":
            args += ["--max-iter", str(v)]
        else:
            args += ["--set", f"{k}={v}"]
    return args


def close(a, b, rel=1e-10):
    return np.max(np.abs(a - b), initial=0.0) <= rel * max(1.0, np.max(np.abs(b), initial=0.0))


@pytest.mark.parametrize("path,solver,opts", CASES,
                         ids=[f"{problem_id(f)}-{s}{'-' + str(len(o)) if len(o) > 1 else ''}"
                              for f, s, o in CASES])
def test_same_as_command(path, solver, opts, tmp_path):
    sol = str(tmp_path / "sol.txt")
    cp = run_cli(*cli_args(path, solver, opts, sol))
    assert cp.returncode in (0, 1), cp.stderr
    cli = json.loads(cp.stdout)

    p, guess = fricon.read(path, guess=True)
    kw = dict(opts)
    max_iter = kw.pop("max_iter", None)
    # the command starts from the file's FClib guess when it has one
    assert cli.get("warm", False) == (guess is not None)
    r0 = guess["r"] if guess is not None else None
    res = fricon.solve(p, solver=solver, max_iter=max_iter, options=kw, r0=r0)

    assert res.status == cli["status"]
    assert res.iterations == cli["iterations"]
    assert p.kind_name == cli["kind"] and p.nc == cli["nc"]
    if cli["residual"] is None:
        assert not np.isfinite(res.residual)
    else:
        assert res.residual == pytest.approx(cli["residual"], rel=2e-6, abs=1e-300)
    r, u, v = read_solution(sol, p)
    assert close(res.r, r) and close(res.u, u)
    if p.kind == "global":
        assert close(res.v, v)
    else:
        assert res.v is None

    # the measure, recomputed independently from the returned r and u
    if p.kind == "local":
        assert res.u == pytest.approx(spec.dense(p.W) @ res.r + p.q, rel=1e-9, abs=1e-12 * max(1, np.abs(res.u).max()))
        mine = spec.local_error(p, res.r)
    else:
        mine = spec.error(p.d, p.mu, p.mu_r, p.w, res.r, res.u)
        assert fricon.residual(p, res.r, res.u) == pytest.approx(res.residual, rel=1e-12)
    assert mine == pytest.approx(res.residual, rel=1e-6, abs=1e-15)
    if res.converged:
        assert mine <= 1e-8 * (1 + 1e-6)
