"""fricon: discrete frictional contact problems from Python.

    import fricon
    p = fricon.read("examples/Capsules-i122-1617.dat")
    res = fricon.solve(p)                     # solver="auto", tol=1e-8
    print(res.status, res.residual, res.iterations, res.seconds)

Problems come from files (fricon.read) or from arrays (fricon.LocalProblem,
fricon.GlobalProblem and their rolling variants, scipy.sparse matrices of
any format or dense arrays).  fricon.solve takes solver options by the
names `fricon options` prints (nsgs_omega=1.3, or
options={"nsgs.omega": 1.3}).  The error measure is SPEC section 2's
(fricon.residual).  fricon.Scene / fricon.simulate drive the rigid-body
simulator.  See docs/python.md.
"""
import math
import numbers
import types

import numpy as np
import scipy.sparse as _sp

from . import _fricon

__version__ = _fricon.VERSION
__all__ = ["Problem", "LocalProblem", "GlobalProblem", "RollingLocalProblem",
           "RollingGlobalProblem", "Result", "Scene", "read", "write", "solve", "residual",
           "solvers", "options", "scenes", "simulate", "LAWS"]

#: names of the per-contact laws of Result.laws (codes 0, 1, 2)
LAWS = ("separated", "sticking", "sliding")

# ---------------------------------------------------------------------------
# problems


def _csr_arrays(A, name):
    n = A.indptr[-1] if A.indptr.size else 0
    if n > np.iinfo(np.int32).max:
        raise ValueError(f"matrix {name} has too many entries ({n})")
    return (np.ascontiguousarray(A.indptr, dtype=np.int32),
            np.ascontiguousarray(A.indices, dtype=np.int32))


def _matrix_arg(A, name, d=None):
    """The extension's tuple form of a scipy.sparse matrix or a dense array."""
    if _sp.issparse(A):
        if np.issubdtype(A.dtype, np.complexfloating):
            raise ValueError(f"matrix {name} is complex")
        rows, cols = A.shape
        if (A.format == "bsr" and d and A.blocksize == (d, d)):
            B = _sp.bsr_matrix(A, dtype=np.float64, copy=True)
            B.sum_duplicates()
            B.sort_indices()
            p, j = _csr_arrays(B, name)
            # scipy's blocks are row-major, fricon's column-major
            x = np.ascontiguousarray(B.data.transpose(0, 2, 1)).ravel()
            return ("bsr", rows, cols, d, p, j, x)
        C = _sp.csr_matrix(A, dtype=np.float64, copy=True)
        C.sum_duplicates()
        C.sort_indices()
        p, j = _csr_arrays(C, name)
        return ("csr", rows, cols, p, j, np.ascontiguousarray(C.data, dtype=np.float64))
    a = _real_array(A, f"matrix {name}")
    if a.ndim != 2:
        raise ValueError(f"matrix {name} must be 2-D, got {a.ndim} dimension(s)")
    return ("dense", a.shape[0], a.shape[1], a)


def _real_array(x, what):
    """x as a contiguous float64 array; ValueError naming what otherwise."""
    a = np.asarray(x)
    if np.iscomplexobj(a):
        raise ValueError(f"{what} is complex")
    try:
        return np.ascontiguousarray(a, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what}: {e}") from None


def _vector_arg(x, name):
    if _sp.issparse(x):
        x = x.toarray()
    a = _real_array(x, name)
    if a.ndim == 2 and 1 in a.shape:
        a = a.ravel()
    if a.ndim == 0:
        a = a.reshape(1)
    return a


def _matrix_from_tuple(t):
    if t is None:
        return None
    kind = t[0]
    if kind == "dense":
        _, rows, cols, x = t
        return x.reshape((cols, rows)).T.copy()
    if kind == "csr":
        _, rows, cols, p, j, x = t
        return _sp.csr_matrix((x, j, p), shape=(rows, cols))
    _, rows, cols, bs, p, j, x = t
    blocks = x.reshape(-1, bs, bs).transpose(0, 2, 1)
    return _sp.bsr_matrix((np.ascontiguousarray(blocks), j, p), shape=(rows, cols))


class Problem:
    """A frictional contact problem (local or global; d = 2, 3 or 5).

    Attributes are read back as new numpy arrays / scipy.sparse matrices:
    W, q (local); M, H, f, w (global); mu, mu_r (rolling, else None);
    equality constraints: neq (0 when none), V, R, s (local) or G, b
    (global), None when absent;
    and kind ('local' / 'global'), kind_name ('fc3d', 'gfc3d', 'rfc3d',
    ...), d, nc, m = d * nc, n (global), name (the source file).
    """

    __slots__ = ("_p",)

    def __init__(self, *args, **kwargs):
        raise TypeError("use fricon.read, fricon.LocalProblem or fricon.GlobalProblem")

    @staticmethod
    def _wrap(cp):
        cls = LocalProblem if cp.kind == "local" else GlobalProblem
        obj = object.__new__(cls)
        obj._p = cp
        return obj

    kind = property(lambda self: self._p.kind)
    kind_name = property(lambda self: self._p.kind_name)
    d = property(lambda self: self._p.d)
    nc = property(lambda self: self._p.nc)
    m = property(lambda self: self._p.m)
    n = property(lambda self: self._p.n)
    name = property(lambda self: self._p.name)
    W = property(lambda self: _matrix_from_tuple(self._p.matrix("W")),
                 doc="W (local), scipy.sparse or a dense array as stored")
    M = property(lambda self: _matrix_from_tuple(self._p.matrix("M")))
    H = property(lambda self: _matrix_from_tuple(self._p.matrix("H")))
    q = property(lambda self: self._p.vector("q"))
    w = property(lambda self: self._p.vector("w"))
    f = property(lambda self: self._p.vector("f"))
    mu = property(lambda self: self._p.vector("mu"))
    mu_r = property(lambda self: self._p.vector("mu_r"))
    neq = property(lambda self: self._p.neq)
    V = property(lambda self: _matrix_from_tuple(self._p.matrix("V")))
    R = property(lambda self: _matrix_from_tuple(self._p.matrix("R")))
    G = property(lambda self: _matrix_from_tuple(self._p.matrix("G")))
    s = property(lambda self: self._p.vector("s"))
    b = property(lambda self: self._p.vector("b"))
    rolling = property(lambda self: self._p.d == 5)

    def write(self, path):
        """Write the problem: FClib HDF5 (.hdf5, .h5) or Siconos text (else)."""
        self._p.write(path)

    def reduce(self):
        """The local problem: W = H^T M^-1 H, q = H^T M^-1 f + w (a copy for a local one)."""
        return Problem._wrap(self._p.reduce())

    def copy(self):
        return Problem._wrap(self._p.copy())

    def __repr__(self):
        extra = f", n={self.n}" if self.kind == "global" else ""
        nm = f", name={self.name!r}" if self.name else ""
        return f"<fricon {type(self).__name__} {self.kind_name} d={self.d} nc={self.nc}{extra}{nm}>"


class LocalProblem(Problem):
    """FC(W, q, mu): u = W r + q, K* ∋ u + g(u) ⟂ r ∈ K.

    W: (m, m) scipy.sparse matrix of any format or dense array, m = d nc;
    q: m values; mu: nc values; d = 2, 3 or 5 (rolling: mu_r needed).
    """

    __slots__ = ()

    def __init__(self, W, q, mu, d=3, mu_r=None):
        self._p = _fricon.make_local(int(d), _matrix_arg(W, "W", int(d)), _vector_arg(q, "q"),
                                     _vector_arg(mu, "mu"),
                                     None if mu_r is None else _vector_arg(mu_r, "mu_r"))


class GlobalProblem(Problem):
    """(M, H, f, w, mu): M v = H r + f, u = H^T v + w, K* ∋ u + g(u) ⟂ r ∈ K.

    M: (n, n), H: (n, m) scipy.sparse (any format) or dense; f: n values;
    w: m values; mu: nc values; d = 2, 3 or 5 (rolling: mu_r needed).
    """

    __slots__ = ()

    def __init__(self, M, H, f, w, mu, d=3, mu_r=None):
        self._p = _fricon.make_global(int(d), _matrix_arg(M, "M"), _matrix_arg(H, "H"),
                                      _vector_arg(f, "f"), _vector_arg(w, "w"),
                                      _vector_arg(mu, "mu"),
                                      None if mu_r is None else _vector_arg(mu_r, "mu_r"))


def RollingLocalProblem(W, q, mu, mu_r):
    """A local problem with rolling friction (d = 5: r = (r_N, r_T1, r_T2, r_R1, r_R2))."""
    return LocalProblem(W, q, mu, d=5, mu_r=mu_r)


def RollingGlobalProblem(M, H, f, w, mu, mu_r):
    """A global problem with rolling friction (d = 5)."""
    return GlobalProblem(M, H, f, w, mu, d=5, mu_r=mu_r)


def read(path, guess=False):
    """Read a problem: FClib HDF5 (.hdf5, .h5) or Siconos text (.dat, else).

    guess=True: return (problem, guess), guess the file's first FClib
    initial guess as a dict {'r': array, 'v': array or None} (what `fricon
    solve` starts from), or None when the file has none.

    Raises OSError (cannot open) or ValueError (malformed, invalid; a guess
    of the wrong size or not finite) with the library's message, the one
    `fricon solve` prints."""
    p = Problem._wrap(_fricon.read(path))
    if not guess:
        return p
    g = _fricon.read_guess(path, p._p)
    return p, (None if g is None else {"r": g[0], "v": g[1]})


def write(problem, path):
    """Write problem to path (format by extension, as read)."""
    _problem_arg(problem).write(path)


def _problem_arg(problem):
    if not isinstance(problem, Problem):
        raise TypeError(f"expected a fricon problem, got {type(problem).__name__}")
    return problem


# ---------------------------------------------------------------------------
# solvers and options as data

_OPTIONS = None


def _option_table():
    global _OPTIONS
    if _OPTIONS is None:
        _OPTIONS = {}
        for name, help_, type_, default, range_, lo, hi in _fricon.options():
            _OPTIONS[name] = dict(name=name, keyword=name.replace(".", "_"), help=help_,
                                  type=type_, default=default, range=range_)
    return _OPTIONS


def options():
    """Every solver option (the list `fricon options` prints): dicts with
    name ('nsgs.omega'), keyword ('nsgs_omega', for solve's keywords),
    help, type ('float', 'int', 'solver'), default and range (as text)."""
    return [dict(o) for o in _option_table().values()]


def solvers():
    """Every registered solver: dicts with name, description, dims (the
    dimensions d it handles), default (True for the default, auto) and
    global (True when it solves a global problem without reducing it)."""
    return [dict(name=n, description=desc, dims=dims, default=dflt, **{"global": glob})
            for n, desc, dims, dflt, glob in _fricon.solvers()]


def scenes():
    """The simulator's built-in scenes: {name: description}."""
    return dict(_fricon.scenes())


def _option_name(key):
    table = _option_table()
    if key in table:
        return key
    for name, o in table.items():
        if o["keyword"] == key:
            return name
    return key  # the library's message names it as unknown


def _option_text(name, value):
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return "1" if value else "0"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, str):
        return value
    raise ValueError(f"option {name}: expected a number or a name, got {type(value).__name__}")


def _settings(tol, max_iter, time_limit, options, kw):
    s = []
    if tol is not None:
        s.append(("tolerance", _option_text("tolerance", tol)))
    if max_iter is not None:
        if not isinstance(max_iter, numbers.Integral):
            raise ValueError(f"max_iter must be an integer, got {max_iter!r}")
        s.append(("max_iter", _option_text("max_iter", max_iter)))
    if time_limit is not None:
        s.append(("time_limit", _option_text("time_limit", time_limit)))
    for src in (options or {}), kw:
        for key, value in src.items():
            name = _option_name(key)
            s.append((name, _option_text(name, value)))
    return s


def _threads_arg(threads):
    if threads is None:
        return 1
    if not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError(f"threads must be an integer >= 1, got {threads!r}")
    return int(threads)


# ---------------------------------------------------------------------------
# solve


class Result:
    """What fricon.solve returns.

    r, u (m values), v (n values for a global problem, else None), lam
    (the multipliers of the equality constraints, problem.neq values, else
    None); status
    ('converged', 'max-iter', 'time-limit', 'diverged', 'error', 'stalled') and
    converged (bool); residual (the SPEC measure recomputed on r, u);
    dyn_residual (global: ||M v - H r - G lambda - f|| / max(1, ||f||));
    eq_residual (with equalities: ||V^T r + R lambda + s|| / max(1, ||s||) or
    ||G^T v + b|| / max(1, ||b||), else None); iterations;
    seconds (the solve alone); message; stages (auto's plan as run: dicts
    with solver, status, iterations, residual, seconds); history (with
    solve(..., history=True): (iterations, errors) reported by the progress
    callback); per contact: laws (codes into fricon.LAWS), contact_errors
    (each contact's share of the measure), law_counts.
    """

    def __init__(self, problem, solver, d):
        self.problem = problem
        self.solver = solver
        self.r = d["r"]
        self.u = d["u"]
        self.v = d["v"]
        self.lam = d["lambda"]
        self.status = d["status"]
        self.converged = self.status == "converged"
        self.residual = d["residual"]
        self.dyn_residual = d["dyn_residual"] if problem.kind == "global" else None
        self.eq_residual = d["eq_residual"] if problem.neq else None
        self.iterations = d["iterations"]
        self.seconds = d["seconds"]
        self.message = d["message"]
        self.stages = d["stages"]
        self.history = ((d["history_iterations"], d["history_errors"])
                        if "history_iterations" in d else None)
        self._diag = None

    def _diagnose(self):
        if self._diag is None:
            self._diag = _fricon.diagnose(self.problem._p, self.r, self.u)
        return self._diag

    @property
    def laws(self):
        """Per contact: 0 separated, 1 sticking, 2 sliding (see fricon.LAWS)."""
        return self._diagnose()[0]

    @property
    def contact_errors(self):
        """Per contact: ||e_a|| / s, its share of the error measure."""
        return self._diagnose()[1]

    @property
    def law_counts(self):
        c = np.bincount(self.laws.astype(np.intp), minlength=3)
        return dict(zip(LAWS, (int(x) for x in c)))

    def worst_contacts(self, k=5):
        """The k contacts of largest error, worst first."""
        e = self.contact_errors
        return np.argsort(-e, kind="stable")[:k]

    def __repr__(self):
        return (f"<fricon Result {self.solver}: {self.status}, residual {self.residual:.3e}, "
                f"{self.iterations} iterations, {self.seconds:.4g} s>")


def solve(problem, solver="auto", tol=1e-8, max_iter=None, time_limit=None, r0=None,
          threads=None, options=None, history=False, callback=None, lambda0=None, **kwargs):
    """Solve problem with the named solver (fricon.solvers()).

    tol: target of the SPEC measure; max_iter: outer iterations (None: the
    library's default); time_limit: seconds (None: none); r0: initial
    guess (m values); lambda0: initial multipliers of the equality
    constraints (neq values); threads: BLAS/OpenMP threads during the solve (None:
    1, as the command); options: {"nsgs.omega": 1.3, ...}, or as keywords
    with dots as underscores (nsgs_omega=1.3); history: record (iteration,
    error) of each progress report; callback(iteration, error): called on
    each report (return True to stop).  The GIL is released during the
    solve (unless callback is given, which takes it for each call).

    Returns a Result; raises ValueError for a bad option, solver or
    argument (with the library's message)."""
    _problem_arg(problem)
    settings = _settings(tol, max_iter, time_limit, options, kwargs)
    if r0 is not None:
        r0 = _vector_arg(r0, "r0")
    if lambda0 is not None:
        lambda0 = _vector_arg(lambda0, "lambda0")
    d = _fricon.solve(problem._p, str(solver), settings, r0, lambda0, _threads_arg(threads),
                      bool(history), callback)
    return Result(problem, str(solver), d)


def residual(problem, r, u=None, v=None, full=False):
    """The error measure of SPEC section 2 at r (u = W r + q, or for a
    global problem u = H^T v + w with v = M^-1 (H r + f), when u is None).
    full=True returns (error, dynamics residual) where the latter is
    ||M v - H r - f|| / max(1, ||f||) for a global problem (with v when
    given), None for a local one."""
    _problem_arg(problem)
    e, dyn = _fricon.residual(problem._p, _vector_arg(r, "r"),
                              None if u is None else _vector_arg(u, "u"),
                              None if v is None else _vector_arg(v, "v"))
    return (e, dyn) if full else e


# ---------------------------------------------------------------------------
# the simulator


class StepInfo(types.SimpleNamespace):
    """One simulation step: step, time, ncontacts, npairs, warm (contacts
    warm-started), status, iterations, residual (the solved problem's
    measure), seconds, stages, global_residual, t_detect, t_build, t_solve,
    t_step, max_speed, min_gap, and problem (with keep_problems=True)."""


class Scene:
    """A rigid-body world stepped by the impulse-velocity scheme
    (include/fricon_mbd.h, docs/mbd.md).

    Scene() is empty; Scene("pile", count=200) builds a named scene
    (fricon.scenes()).  Bodies: add_sphere, add_box, add_plane; their state
    as arrays (positions, orientations, velocities, angular_velocities, and
    bodies() for everything), changed with set_position, set_velocity, ...
    step() solves one contact problem; problem is the last step's.
    """

    def __init__(self, name=None, *, count=None, mu=None, angle=None, seed=None, dt=None,
                 gravity=None, margin=None, stabilisation=None):
        self._w = _fricon.World(name, 0 if count is None else int(count),
                                -1.0 if mu is None else float(mu),
                                math.nan if angle is None else float(angle),
                                -1 if seed is None else int(seed))
        self.configure(dt=dt, gravity=gravity, margin=margin, stabilisation=stabilisation)

    def configure(self, dt=None, gravity=None, margin=None, stabilisation=None,
                  general_reduction=None):
        kw = {}
        if dt is not None:
            kw["dt"] = float(dt)
        if gravity is not None:
            kw["gravity"] = _vector_arg(gravity, "gravity")
        if margin is not None:
            kw["margin"] = float(margin)
        if stabilisation is not None:
            kw["stabilisation"] = float(stabilisation)
        if general_reduction is not None:
            kw["general_reduction"] = int(bool(general_reduction))
        if kw:
            self._w.set(**kw)

    # bodies
    def add_sphere(self, radius, position, density=1000.0):
        return self._w.add_sphere(float(radius), float(density), *map(float, position))

    def add_box(self, half_extents, position, density=1000.0):
        hx, hy, hz = map(float, half_extents)
        return self._w.add_box(hx, hy, hz, float(density), *map(float, position))

    def add_plane(self, normal=(0.0, 0.0, 1.0), point=(0.0, 0.0, 0.0)):
        return self._w.add_plane(*map(float, normal), *map(float, point))

    def bodies(self):
        """Every body's state: dict of arrays shape (0 sphere, 1 box, 2 plane),
        x, q, v, omega, half, mass, mu, radius, fixed."""
        return self._w.bodies()

    nbodies = property(lambda self: len(self._w.bodies()["mass"]))
    positions = property(lambda self: self._w.bodies()["x"], doc="(nb, 3) centres of mass")
    orientations = property(lambda self: self._w.bodies()["q"], doc="(nb, 4) quaternions (w, x, y, z)")
    velocities = property(lambda self: self._w.bodies()["v"], doc="(nb, 3)")
    angular_velocities = property(lambda self: self._w.bodies()["omega"], doc="(nb, 3)")

    def set_position(self, i, x):
        self._w.set_body(int(i), "x", _vector_arg(x, "x"))

    def set_orientation(self, i, q):
        self._w.set_body(int(i), "q", _vector_arg(q, "q"))

    def set_velocity(self, i, v):
        self._w.set_body(int(i), "v", _vector_arg(v, "v"))

    def set_angular_velocity(self, i, omega):
        self._w.set_body(int(i), "omega", _vector_arg(omega, "omega"))

    def set_mu(self, i, mu):
        self._w.set_body(int(i), "mu", float(mu))

    def set_mass(self, i, mass):
        self._w.set_body(int(i), "mass", float(mass))

    time = property(lambda self: self._w.state()["time"])
    dt = property(lambda self: self._w.state()["dt"])
    kinetic_energy = property(lambda self: self._w.state()["kinetic_energy"])

    def contacts(self):
        """The contacts of the last detection / step: dict of arrays bodies
        (nc, 2), point, normal, impulse (n, t1, t2), gap, mu."""
        return self._w.contacts()

    @property
    def problem(self):
        """The last step's global problem (a copy), or None (no contact)."""
        p = self._w.last_problem(False)
        return None if p is None else Problem._wrap(p)

    @property
    def local_problem(self):
        """The last step's local form (W, q) when the step reduced it, else None."""
        p = self._w.last_problem(True)
        return None if p is None else Problem._wrap(p)

    def build_problem(self):
        """Detect contacts and return the global problem of a step from the
        current state (None when there is no contact), without stepping."""
        self._w.detect()
        p = self._w.build_problem()
        return None if p is None else Problem._wrap(p)

    def step(self, solver="auto", tol=1e-8, max_iter=None, time_limit=None, threads=None,
             options=None, keep_problem=False, **kwargs):
        """Advance one step, the contact problem solved by solver with the
        options of fricon.solve; returns a StepInfo."""
        settings = _settings(tol, max_iter, time_limit, options, kwargs)
        d = self._w.step(str(solver), settings, _threads_arg(threads))
        s = d.pop("solve")
        info = StepInfo(**d, status=s["status"], iterations=s["iterations"],
                        residual=s["residual"], seconds=s["seconds"], stages=s["stages"],
                        message=s["message"], problem=None)
        if keep_problem:
            info.problem = self.problem
        return info

    def write_vtk(self, path, plane_size=10.0):
        self._w.write_vtk(path, float(plane_size))

    def __repr__(self):
        return f"<fricon Scene: {self.nbodies} bodies, t = {self.time:g} s>"


def simulate(scene, steps, solver="auto", callback=None, keep_problems=False, **solve_options):
    """Run steps steps of scene (a Scene, or a scene name for Scene(name)).

    callback(scene, info) is called after each step (return True to stop);
    keep_problems=True keeps each step's problem in info.problem.
    solve_options are those of fricon.solve (tol, max_iter, nsgs_omega, ...).
    Returns the list of StepInfo."""
    if isinstance(scene, str):
        scene = Scene(scene)
    infos = []
    for _ in range(int(steps)):
        info = scene.step(solver, keep_problem=keep_problems, **solve_options)
        infos.append(info)
        if callback is not None and callback(scene, info):
            break
    return infos
