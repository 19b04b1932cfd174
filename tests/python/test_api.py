"""Problems from arrays (every scipy.sparse format, dense), attributes,
files, options by name, solvers and options as data, history, r0,
per-contact diagnostics, residual."""
import os

import numpy as np
import pytest
import scipy.sparse as sp

import fricon
import spec
from conftest import SHARED, example, run_cli

CAPSULES = example("Capsules-i122-1617.dat")
RODS = example("GFC3D_TwoRods1.dat")
ROLLING = example("RFC3D_sphere_1.dat")


def formats(A, d):
    """A (scipy.sparse) in every scipy format and as dense arrays."""
    out = {
        "csr": sp.csr_matrix(A), "csc": sp.csc_matrix(A), "coo": sp.coo_matrix(A),
        "bsr-d": sp.bsr_matrix(A, blocksize=(d, d)), "bsr-1": sp.bsr_matrix(A, blocksize=(1, 1)),
        "lil": sp.lil_matrix(A), "dok": sp.dok_matrix(A), "dia": sp.dia_matrix(A),
        "ndarray": A.toarray(), "fortran": np.asfortranarray(A.toarray()),
        "matrix": np.asmatrix(A.toarray()), "list": A.toarray().tolist(),
        "float32": sp.csr_matrix(A).astype(np.float32), "int-dense": np.rint(A.toarray() * 1e6).astype(np.int64),
    }
    for name in ("csr_array", "csc_array", "coo_array", "bsr_array", "lil_array", "dok_array",
                 "dia_array"):
        if hasattr(sp, name):
            out[name] = getattr(sp, name)(A)
    # unsorted indices and duplicates (summed)
    C = sp.coo_matrix(A)
    half = C.data / 2
    out["coo-duplicates"] = sp.coo_matrix((np.r_[half, half], (np.r_[C.row, C.row], np.r_[C.col, C.col])),
                                          shape=A.shape)
    return out


@pytest.fixture(scope="module")
def capsules():
    p = fricon.read(CAPSULES)
    return p, fricon.solve(p)


@pytest.mark.filterwarnings("ignore::scipy.sparse.SparseEfficiencyWarning", "ignore::PendingDeprecationWarning")
@pytest.mark.parametrize("fmt", list(formats(sp.eye(6, format="csr"), 3)))
def test_local_every_format(fmt, capsules):
    p, ref = capsules
    W = sp.csr_matrix(p.W)
    A = formats(W, 3)[fmt]
    lp = fricon.LocalProblem(A, p.q, p.mu, d=3)
    assert lp.kind == "local" and lp.nc == p.nc and lp.d == 3
    assert np.array_equal(spec.dense(lp.W), np.asarray(spec.dense(A), dtype=np.float64))
    res = fricon.solve(lp)
    assert res.converged
    assert spec.local_error(lp, res.r) <= 1e-8 * (1 + 1e-6)
    if sp.issparse(A) and A.dtype == np.float64:  # CSR or BSR, as read: the same solution
        # (a dense W takes other paths to another solution: W is singular)
        assert np.allclose(res.r, ref.r, rtol=0, atol=1e-6 * np.abs(ref.r).max())


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr-d", "lil", "dok", "ndarray", "coo_array"])
def test_global_every_format(fmt):
    p = fricon.read(RODS)
    ref = fricon.solve(p)
    M, H = sp.csr_matrix(p.M), sp.csr_matrix(p.H)
    Mf = formats(M, 3).get(fmt, M)
    Hf = formats(H, 1 if fmt == "bsr-d" else 3).get(fmt.replace("bsr-d", "bsr-1"), H)
    gp = fricon.GlobalProblem(Mf, Hf, p.f, p.w, p.mu, d=3)
    assert gp.kind == "global" and gp.n == p.n and gp.nc == p.nc
    assert np.array_equal(spec.dense(gp.M), M.toarray())
    assert np.array_equal(spec.dense(gp.H), H.toarray())
    res = fricon.solve(gp)
    assert res.converged and res.v.shape == (p.n,)
    e, dyn = spec.global_error(gp, res.r, res.v)
    assert e <= 1e-8 * (1 + 1e-6) and dyn <= 1e-8
    assert np.allclose(res.r, ref.r, atol=1e-6 * max(1, np.abs(ref.r).max()))


def test_rolling_from_arrays():
    p = fricon.read(ROLLING)
    assert p.d == 5 and p.rolling and p.mu_r.shape == (p.nc,)
    lp = fricon.RollingLocalProblem(sp.coo_matrix(p.W), p.q, p.mu, p.mu_r)
    res = fricon.solve(lp)
    assert lp.kind_name == "rfc3d" and res.converged
    assert spec.local_error(lp, res.r) == pytest.approx(res.residual, rel=1e-6, abs=1e-15)
    path = os.path.join(SHARED, "rolling", "Chute-ndof-768-nc-4-3.hdf5")
    if os.path.exists(path):
        g = fricon.read(path)
        gg = fricon.RollingGlobalProblem(g.M, g.H, g.f, g.w, g.mu, g.mu_r)
        assert gg.kind_name == "grfc3d"
        assert fricon.solve(gg).converged


def test_attributes():
    p = fricon.read(CAPSULES)
    m = p.m
    assert m == 3 * p.nc
    assert p.q.dtype == np.float64 and p.q.shape == (m,)
    assert p.mu.shape == (p.nc,) and p.mu_r is None
    assert p.W.shape == (m, m) and p.M is None and p.H is None and p.f is None
    assert p.name == "Capsules-i122-1617.dat"
    q = p.q
    q[:] = 0  # a copy: the problem is unchanged
    assert np.abs(p.q).max() > 0
    g = fricon.read(RODS)
    assert g.M.shape == (g.n, g.n) and g.H.shape == (g.n, g.m)
    assert g.f.shape == (g.n,) and g.w.shape == (g.m,) and g.W is None and g.q is None
    lg = g.reduce()
    assert lg.kind == "local" and lg.W.shape == (g.m, g.m)
    assert "GlobalProblem" in repr(g)


@pytest.mark.parametrize("ext", [".dat", ".hdf5"])
@pytest.mark.parametrize("src", [CAPSULES, RODS, ROLLING])
def test_write_read(src, ext, tmp_path):
    p = fricon.read(src)
    out = str(tmp_path / ("copy" + ext))
    fricon.write(p, out)
    c = fricon.read(out)
    assert (c.kind, c.d, c.nc, c.n) == (p.kind, p.d, p.nc, p.n)
    for name in ("W", "M", "H"):
        a, b = getattr(p, name), getattr(c, name)
        assert (a is None) == (b is None)
        if a is not None:
            assert np.array_equal(spec.dense(a), spec.dense(b))
    for name in ("q", "f", "w", "mu", "mu_r"):
        a, b = getattr(p, name), getattr(c, name)
        assert (a is None and b is None) or np.array_equal(a, b)
    # a problem made from arrays is written too, and the command reads it
    lp = fricon.LocalProblem(np.eye(3) * 2, [-1.0, 0.5, 0.0], [0.3])
    path = str(tmp_path / ("made" + ext))
    lp.write(path)
    cp = run_cli("solve", path, "--json")
    assert cp.returncode == 0, cp.stderr


def test_options_by_name():
    p = fricon.read(CAPSULES)
    a = fricon.solve(p, "nsgs", max_iter=25, nsgs_omega=1.3, nsgs_anderson=0)
    b = fricon.solve(p, "nsgs", max_iter=25, options={"nsgs.omega": 1.3, "nsgs.anderson": 0})
    c = fricon.solve(p, "nsgs", max_iter=25)
    assert a.iterations == b.iterations == 25
    assert np.array_equal(a.r, b.r) and not np.array_equal(a.r, c.r)
    # an option of another family and a solver-valued one
    d = fricon.solve(p, "prox", prox_inner_solver="psor", prox_inner_max_iter=50, max_iter=3)
    assert d.iterations <= 3
    # tol is honoured and time_limit accepted
    e = fricon.solve(p, "auto", tol=1e-12, time_limit=30)
    assert e.residual <= 1e-12 or not e.converged


def test_solvers_and_options_as_data():
    s = fricon.solvers()
    names = [x["name"] for x in s]
    cp = run_cli("solvers")
    assert names == [ln.split()[0] for ln in cp.stdout.splitlines() if ln.strip()]
    auto = s[names.index("auto")]
    assert auto["default"] and auto["dims"] == [2, 3, 5]
    assert sum(x["default"] for x in s) == 1
    o = fricon.options()
    byname = {x["name"]: x for x in o}
    cp = run_cli("options")
    assert list(byname) == [ln.split()[0] for ln in cp.stdout.splitlines() if ln.strip()]
    assert byname["nsgs.omega"]["default"] == 1.0 and byname["nsgs.omega"]["type"] == "float"
    assert byname["nsgs.omega"]["keyword"] == "nsgs_omega"
    assert byname["max_iter"]["type"] == "int" and byname["prox.inner_solver"]["type"] == "solver"
    assert "(0, 2)" in byname["nsgs.omega"]["range"]
    assert "pile" in fricon.scenes()


def test_history_and_callback():
    p = fricon.read(CAPSULES)
    res = fricon.solve(p, "nsgs", history=True, max_iter=200)
    its, errs = res.history
    assert len(its) == len(errs) > 0 and np.all(np.diff(its) > 0)
    assert errs[-1] == pytest.approx(res.residual, rel=1e-3) or res.converged
    seen = []

    def stop_at_5(it, err):
        seen.append((it, err))
        return len(seen) >= 5

    res = fricon.solve(p, "nsgs", nsgs_error_every=1, callback=stop_at_5)
    assert len(seen) == 5 and not res.converged
    assert "progress callback" in res.message

    def boom(it, err):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        fricon.solve(p, "nsgs", nsgs_error_every=1, callback=boom)


def test_warm_start_and_diagnostics():
    p = fricon.read(CAPSULES)
    res = fricon.solve(p)
    again = fricon.solve(p, r0=res.r)
    assert again.converged and again.iterations == 0
    assert np.array_equal(again.r, res.r)
    laws, errs = res.laws, res.contact_errors
    assert laws.shape == (p.nc,) and errs.shape == (p.nc,)
    assert sum(res.law_counts.values()) == p.nc
    assert np.sqrt(np.sum(errs ** 2)) == pytest.approx(res.residual, rel=1e-6)
    assert errs[res.worst_contacts(1)[0]] == errs.max()
    # the laws, judged independently: separated when r_N = 0
    R = res.r.reshape(-1, 3)
    assert np.all((laws == 0) == (R[:, 0] <= 1e-12 * max(np.linalg.norm(p.q), np.linalg.norm(res.r),
                                                         np.linalg.norm(res.u))))
    assert all(s["solver"] for s in res.stages) and res.stages[-1]["status"] == "converged"


def test_residual():
    p = fricon.read(CAPSULES)
    rng = np.random.default_rng(1)
    r = rng.standard_normal(p.m)
    assert fricon.residual(p, r) == pytest.approx(spec.local_error(p, r), rel=1e-10)
    u = rng.standard_normal(p.m)
    assert fricon.residual(p, r, u) == pytest.approx(spec.error(3, p.mu, None, p.q, r, u), rel=1e-10)
    g = fricon.read(RODS)
    r = rng.standard_normal(g.m)
    e, dyn = fricon.residual(g, r, full=True)
    mine, mydyn = spec.global_error(g, r)
    assert e == pytest.approx(mine, rel=1e-8) and dyn <= 1e-12
    v = rng.standard_normal(g.n)
    e, dyn = fricon.residual(g, r, v=v, full=True)
    assert dyn == pytest.approx(spec.global_error(g, r, v)[1], rel=1e-10)
    assert fricon.residual(p, np.zeros(p.m), full=True)[1] is None


def test_threads_and_paths(tmp_path):
    import pathlib
    p = fricon.read(pathlib.Path(CAPSULES))
    a = fricon.solve(p, "nsgs", max_iter=30)
    b = fricon.solve(p, "nsgs", max_iter=30, threads=2)
    assert a.iterations == b.iterations and np.allclose(a.r, b.r, rtol=1e-12, atol=1e-15)
    out = tmp_path / "p.hdf5"
    fricon.write(p, out)
    assert fricon.read(out).nc == p.nc


@pytest.mark.parametrize("local", [False, True])
def test_equalities(local, tmp_path):
    """A problem with equality constraints (made by tests/eqcheck.py from a
    shared global one): neq, G, b (or V, R, s) read as written; a solve
    either refuses it (ValueError naming equalities) or returns lambda
    meeting the equality residual, recomputed here."""
    import subprocess
    import sys
    src = os.path.join(SHARED, "global", "Box_Stacks-i0122-82-5.hdf5")
    if not os.path.exists(src):
        pytest.skip("shared data missing")
    out = str(tmp_path / "eq.hdf5")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([sys.executable, os.path.join(here, "eqcheck.py"), "make", src, out, out + ".sol", "3", "1"] +
                   (["--local"] if local else []), check=True)
    p = fricon.read(out)
    assert p.neq == 3
    if local:
        assert p.V.shape == (p.m, 3) and p.R.shape == (3, 3) and p.s.shape == (3,) and p.G is None
    else:
        assert p.G.shape == (p.n, 3) and p.b.shape == (3,) and p.V is None and p.s is None
    try:
        res = fricon.solve(p, solver="auto")
    except ValueError as e:
        assert "equality" in str(e)
        return
    assert res.lam.shape == (3,)
    if local:
        t = p.V.T @ res.r + p.R @ res.lam + p.s
        scale = max(1.0, np.linalg.norm(p.s))
    else:
        t = p.G.T @ res.v + p.b
        scale = max(1.0, np.linalg.norm(p.b))
    assert abs(np.linalg.norm(t) / scale - res.eq_residual) <= 1e-10 + 1e-6 * res.eq_residual
    # warm-started from its own solution, nsgs meets the tolerance at once
    warm = fricon.solve(p, solver="nsgs", r0=res.r, lambda0=res.lam)
    assert warm.status == "converged" and warm.iterations <= 1
    assert np.allclose(warm.lam, res.lam, rtol=1e-6, atol=1e-9 * max(1.0, np.abs(res.lam).max()))
    with pytest.raises(ValueError):
        fricon.solve(p, lambda0=np.full(3, np.nan))
