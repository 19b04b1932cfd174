#!/usr/bin/python3
"""Siconos/Numerics 4.4 on the same problems, tolerance and isolation as
`fricon bench`, writing the same CSV columns (solver names `siconos-*`).

usage: siconos_bench.py [--solvers NSGS,NSN-AC,...] [--tol 1e-8] [--time-limit S]
                        [--mem-limit MB] [--max-iter N] [--out DIR] [--fricon PATH]
                        FILE|DIR...

Each run is one forked child process (the modules are imported once, in
the parent): the child sets RLIMIT_AS (--mem-limit), reads the problem with
Siconos' own reader, tells the parent it starts solving, times the driver
call alone (time.perf_counter around fc3d_driver & co, no I/O), writes the
returned r (and u) as a solution file of SPEC section 3 and reports through
a pipe.  The parent kills a child that runs past the time limit plus a
margin (Siconos solvers have no time limit of their own): status timeout.
The residual of every run is then recomputed by `fricon check PROBLEM
SOLUTION` -- the SPEC measure with u = W r + q -- so fricon and Siconos
are judged by one ruler; when fricon cannot read a problem the project's
independent checker (shared/tools/fccheck.py, the same formula) is used.

Debian: apt-get install python3-siconos; run with /usr/bin/python3.
"""
import argparse
import json
import math
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# one thread, set before numpy and Siconos load OpenBLAS and libgomp
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as fricon bench: one thread
os.environ.setdefault("OMP_NUM_THREADS", "1")
# as fricon does (app/main.c): no OpenMP thread team in SuiteSparse either.
# Set before the Siconos modules (and their libraries) are loaded.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import numpy as np

try:
    import siconos.numerics as sn
except ImportError:
    sys.exit("siconos_bench: python3-siconos is not installed (apt-get install python3-siconos)")

HEADER = "problem,kind,nc,nnz,solver,status,iterations,residual,seconds,peak_rss_mb"
READ_DEADLINE = 120.0

# Every Siconos 4.4 solver of the whole problem, by problem kind.  Left out:
# the GAMS solvers (not in the Debian build), the one-contact solvers
# (ONECONTACT_*, NCPGlocker*: local solvers used inside NSGS) and the
# cylinder (Tresca) solvers VI_FPP_Cylinder and CONVEXQP_PG_CYLINDER, which
# solve another problem (friction threshold fixed, not Coulomb's law).
SOLVERS = {
    "fc3d": ("fc3d_driver", "SICONOS_FRICTION_3D_", [
        "NSGS", "NSGSV", "PROX", "TFP", "NSN_AC", "NSN_AC_TEST", "NSN_FB", "NSN_NM",
        "DSFP", "VI_FPP", "VI_EG", "HP", "FPP", "EG", "ACLMFP", "SOCLCP", "PFP", "ADMM"]),
    "fc2d": ("fc2d_driver", "SICONOS_FRICTION_2D_", ["NSGS", "CPG", "LEMKE", "ENUM"]),
    "gfc3d": ("gfc3d_driver", "SICONOS_GLOBAL_FRICTION_3D_", [
        "NSGS_WR", "NSGSV_WR", "PROX_WR", "DSFP_WR", "TFP_WR", "NSGS", "NSN_AC_WR", "NSN_AC",
        "VI_FPP", "VI_EG", "ACLMFP", "ADMM", "ADMM_WR", "IPM"]),
    "rfc3d": ("rolling_fc3d_driver", "SICONOS_ROLLING_FRICTION_3D_", ["NSGS", "ADMM"]),
    "grfc3d": ("g_rolling_fc3d_driver", "SICONOS_GLOBAL_ROLLING_FRICTION_3D_", ["NSGS_WR"]),
}


def solver_name(sid):
    return "siconos-" + sid.replace("_", "-")


def available(kind):
    driver, prefix, ids = SOLVERS.get(kind, (None, None, []))
    return [(solver_name(s), getattr(sn, prefix + s)) for s in ids if hasattr(sn, prefix + s)]


# ---------------------------------------------------------------- files

def problem_files(inputs):
    files = []
    for path in inputs:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, f) for f in os.listdir(path)
                            if not f.startswith(".") and f.endswith((".dat", ".hdf5", ".h5")))
        elif os.path.exists(path):
            files.append(path)
        else:
            sys.exit("siconos_bench: %s: no such file or directory" % path)
    return files


def probe(fricon, path):
    """kind, nc, nnz from `fricon info`; a header-based guess when fricon
    cannot read the file (then nnz is 0)."""
    try:
        out = subprocess.run([fricon, "info", path], capture_output=True, text=True, timeout=120)
        info = {}
        for line in out.stdout.splitlines():
            key, _, val = line.partition(":")
            info[key.strip()] = val.strip()
        if out.returncode == 0 and "kind" in info:
            nnz = 0
            for key in ("W", "M", "H"):
                if key in info and "nnz" in info[key]:
                    nnz += int(info[key].split("nnz")[1].split(",")[0])
            return info["kind"], int(info["nc"]), nnz
    except (OSError, subprocess.TimeoutExpired, ValueError):
        pass
    return guess_kind(path)


def guess_kind(path):
    names = {2: "fc2d", 3: "fc3d", 5: "rfc3d"}
    try:
        if path.endswith((".hdf5", ".h5")):
            import h5py
            with h5py.File(path, "r") as f:
                glob = "fclib_global" in f
                g = f["fclib_global" if glob else "fclib_local"]
                d = int(np.array(g["spacedim"]).ravel()[0])
                nc = len(np.array(g["vectors"]["mu"]).ravel())
        else:
            with open(path) as f:
                tok = f.read(4096).split()
            d, nc, rows = int(tok[0]), int(tok[1]), int(tok[3])
            glob = rows != d * nc
        return ("g" if glob else "") + names.get(d, "fc%dd" % d), nc, 0
    except Exception:  # unreadable: the runs will say so
        return "?", 0, 0


def hdf5_matrix(g):
    """An FClib matrix group as scipy CSC (tests/gfccheck.py reads the three storages)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
    from gfccheck import matrix
    return matrix(g).tocsc()


def write_sbm_dat(path, d, W, q, mu):
    """A local problem in Siconos' own text format with W as a sparse-block
    matrix (storage 1, d x d blocks): what Siconos' reader builds from its
    own .dat files, so an FClib HDF5 problem reaches it in native form."""
    m = W.shape[0]
    nc = m // d
    B = W.tobsr(blocksize=(d, d))
    B.sort_indices()
    nb = len(B.indices)
    cum = " ".join(str(d * (k + 1)) for k in range(nc))
    with open(path, "w") as f:
        f.write("%d\n%d\n1 %d %d\n%d\n%d\n%d\n" % (d, nc, m, m, nb, nc, nc))
        f.write(cum + "\n" + cum + "\n%d\n%d\n" % (nc + 1, nb))
        f.write(" ".join(str(int(k)) for k in B.indptr) + "\n")
        f.write(" ".join(str(int(k)) for k in B.indices) + "\n")
        for k in range(nb):
            f.write("%d\n" % k)
            f.write(" ".join("%.17g" % v for v in B.data[k].T.ravel()) + "\n")
        f.write(" ".join("%.17g" % v for v in q) + "\n")
        f.write(" ".join("%.17g" % v for v in mu) + "\n")


def prepare(path, kind, tmpdir):
    """What the child loads: ('dat', path) read by Siconos' reader, or
    ('global', d, M, H, f, w, mu) for an FClib global problem."""
    if not path.endswith((".hdf5", ".h5")):
        return ("dat", path)
    import h5py
    with h5py.File(path, "r") as f:
        if "fclib_local" in f:
            g = f["fclib_local"]
            d = int(np.array(g["spacedim"]).ravel()[0])
            out = os.path.join(tmpdir, os.path.basename(path) + ".dat")
            write_sbm_dat(out, d, hdf5_matrix(g["W"]), np.array(g["vectors"]["q"]).ravel(),
                          np.array(g["vectors"]["mu"]).ravel())
            return ("dat", out)
        g = f["fclib_global"]
        d = int(np.array(g["spacedim"]).ravel()[0])
        return ("global", d, hdf5_matrix(g["M"]), hdf5_matrix(g["H"]),
                np.array(g["vectors"]["f"]).ravel(), np.array(g["vectors"]["w"]).ravel(),
                np.array(g["vectors"]["mu"]).ravel())


def load(source, kind):
    """The Siconos problem object (in the child)."""
    if source[0] == "global":
        _, d, M, H, fv, w, mu = source
        g = sn.GlobalFrictionContactProblem()
        g.dimension, g.numberOfContacts = d, len(mu)
        g.M, g.H, g.q, g.b, g.mu = M, H, fv, w, mu
        return g
    path = source[1]
    if kind in ("fc3d", "fc2d"):
        return sn.frictionContact_newFromFile(path)
    if kind in ("gfc3d", "gfc2d"):
        return sn.globalFrictionContact_newFromFile(path)
    if kind == "rfc3d":
        return sn.rollingFrictionContact_newFromFile(path)
    if kind == "grfc3d":
        return sn.globalRollingFrictionContact_newFromFile(path)
    raise ValueError("no Siconos reader for a %s problem" % kind)


def global_n(problem):
    M = problem.M
    for attr in ("shape",):
        if hasattr(M, attr):
            return M.shape[0]
    return M.size0


# ---------------------------------------------------------------- one run

def child_run(fd, source, kind, solver_id, tol, max_iter, solfile):
    """In the child: read, solve, write the solution, report."""
    def send(obj):
        os.write(fd, (json.dumps(obj) + "\n").encode())

    problem = load(source, kind)
    d, nc = problem.dimension, problem.numberOfContacts
    m = d * nc
    r, u = np.zeros(m), np.zeros(m)
    so = sn.SolverOptions(solver_id)
    so.iparam[sn.SICONOS_IPARAM_MAX_ITER] = max_iter
    so.dparam[sn.SICONOS_DPARAM_TOL] = tol
    driver = getattr(sn, SOLVERS[kind][0])
    os.write(fd, b"start\n")
    if kind in ("gfc3d", "grfc3d"):
        v = np.zeros(global_n(problem))
        t0 = time.perf_counter()
        info = driver(problem, r, u, v, so)
        seconds = time.perf_counter() - t0
    else:
        t0 = time.perf_counter()
        info = driver(problem, r, u, so)
        seconds = time.perf_counter() - t0
    with open(solfile, "w") as f:
        f.write("# fricon solution d=%d nc=%d\n" % (d, nc))
        for a in range(nc):
            f.write(" ".join("%.17g" % x for x in list(r[d * a:d * a + d]) + list(u[d * a:d * a + d])) + "\n")
    send({"status": "ok", "info": int(info), "iterations": int(so.iparam[sn.SICONOS_IPARAM_ITER_DONE]),
          "seconds": seconds, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0})


def isolate(target, mem_mb, solve_deadline):
    """Fork; target(fd) in the child under RLIMIT_AS; kill the child
    READ_DEADLINE s after the fork or solve_deadline s after its 'start'
    line.  Returns (result dict or None, fate, seconds since start)."""
    rfd, wfd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(rfd)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            if mem_mb > 0:
                limit = int(mem_mb * 1048576)
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            target(wfd)
        except MemoryError:
            os.write(wfd, b'{"status": "oom"}\n')
        except BaseException as e:  # noqa: B036 -- the child must always report
            os.write(wfd, (json.dumps({"status": "error", "message": str(e)[:200]}) + "\n").encode())
            code = 1
        os._exit(code)
    os.close(wfd)
    buf = b""
    t_start = time.monotonic()
    deadline = READ_DEADLINE
    timed_out = False
    while True:
        left = deadline - (time.monotonic() - t_start)
        if deadline > 0 and left <= 0:
            os.kill(pid, signal.SIGKILL)
            timed_out = True
            break
        ready, _, _ = select.select([rfd], [], [], min(1.0, left) if deadline > 0 else 1.0)
        if not ready:
            continue
        chunk = os.read(rfd, 65536)
        if not chunk:
            break
        buf += chunk
        if buf.startswith(b"start\n"):
            buf = buf[6:]
            t_start = time.monotonic()
            deadline = solve_deadline
        if b"\n" in buf:
            break
    os.close(rfd)
    if not timed_out and b"\n" in buf:  # the result is in; reap the child
        t1 = time.monotonic()
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() - t1 > 5:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.002)
        return json.loads(buf.split(b"\n")[0]), "ok", time.monotonic() - t_start
    _, status = os.waitpid(pid, 0)
    wall = time.monotonic() - t_start
    if timed_out:
        return None, "timeout", wall
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return None, "oom", wall  # the kernel's OOM killer
    return None, "crash", wall


def measure(fricon, checker, path, solfile, tol):
    """The SPEC measure of solfile: fricon check, else the independent checker."""
    try:
        out = subprocess.run([fricon, "check", path, solfile, "--tol", repr(tol)],
                             capture_output=True, text=True, timeout=300)
        if out.returncode in (0, 1):
            return float(out.stdout.split()[0])
        if checker and os.path.exists(checker):
            out = subprocess.run(["/usr/bin/python3", checker, path, solfile],
                                 capture_output=True, text=True, timeout=600)
            if out.returncode == 0:
                return float(out.stdout.split()[0])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        pass
    return float("nan")


# ---------------------------------------------------------------- campaign

def fmt_duration(s):
    if s < 60:
        return "%.0fs" % s
    return "%dm%02ds" % (s // 60, s % 60)


def csv_field(s):
    return '"%s"' % s.replace('"', '""') if any(c in s for c in ',"\n') else s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solvers", help="comma-separated, with or without the siconos- prefix")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--kill-margin", type=float, default=None,
                    help="seconds past the time limit before the kill (default 1 + 0.1 x limit)")
    ap.add_argument("--mem-limit", type=float, default=4096.0, help="MB of address space (RLIMIT_AS)")
    ap.add_argument("--max-iter", type=int, default=100000)
    ap.add_argument("--out", default="bench-out-siconos")
    ap.add_argument("--fricon", default=shutil.which("fricon") or os.path.join(here, "../../build/fricon"))
    ap.add_argument("--checker", default=os.path.join(here, "../../../shared/tools/fccheck.py"))
    ap.add_argument("inputs", nargs="+", metavar="FILE|DIR")
    a = ap.parse_args()
    margin = a.kill_margin if a.kill_margin is not None else 1.0 + 0.1 * a.time_limit
    wanted = None
    if a.solvers:
        wanted = {solver_name(s.replace("siconos-", "").replace("-", "_").upper())
                  for s in a.solvers.split(",") if s}
        known = {n for kind in SOLVERS for n, _ in available(kind)}
        unknown = wanted - known
        if unknown:
            sys.exit("siconos_bench: unknown solver(s): %s (known: %s)" % (
                ", ".join(sorted(unknown)), ", ".join(sorted(known))))
    if not os.access(a.fricon, os.X_OK):
        sys.exit("siconos_bench: %s is not the fricon program (--fricon PATH)" % a.fricon)
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="siconos-bench-", dir=a.out)
    files = problem_files(a.inputs)
    plan = []
    for path in files:
        kind, nc, nnz = probe(a.fricon, path)
        solvers = [s for s in available(kind) if wanted is None or s[0] in wanted]
        if not solvers:
            print("siconos_bench: %s: no Siconos solver for a %s problem" % (path, kind), file=sys.stderr)
        plan.append((path, kind, nc, nnz, solvers))
    total = sum(len(p[4]) for p in plan)
    tty = sys.stderr.isatty()
    t0 = time.monotonic()
    done = solved = 0
    with open(os.path.join(a.out, "results.csv"), "w") as csv:
        csv.write(HEADER + "\n")
        for path, kind, nc, nnz, solvers in plan:
            name = os.path.basename(path)
            try:
                source = prepare(path, kind, tmp)
            except Exception as e:  # noqa: BLE001 -- recorded as the runs' failure
                print("siconos_bench: %s: %s" % (path, e), file=sys.stderr)
                source = ("dat", path)
            for sname, sid in solvers:
                elapsed = time.monotonic() - t0
                eta = fmt_duration(elapsed / done * (total - done)) if done else "?"
                if tty:
                    sys.stderr.write("\r\033[K[%d/%d] %s  %s  elapsed %s  ETA %s" % (
                        done + 1, total, name, sname, fmt_duration(elapsed), eta))
                    sys.stderr.flush()
                solfile = os.path.join(tmp, "solution.txt")
                if os.path.exists(solfile):
                    os.unlink(solfile)
                res, fate, wall = isolate(
                    lambda fd: child_run(fd, source, kind, sid, a.tol, a.max_iter, solfile),
                    a.mem_limit, a.time_limit + margin if a.time_limit > 0 else 0)
                it, residual, seconds, rss = 0, float("nan"), wall, float("nan")
                if res is None:
                    status = fate
                elif res["status"] != "ok":
                    status = res["status"]
                else:
                    it, seconds, rss = res["iterations"], res["seconds"], res["rss"]
                    residual = measure(a.fricon, a.checker, path, solfile, a.tol)
                    if residual <= a.tol:
                        status = "converged"
                    elif res["info"] == 0:
                        status = "inaccurate"  # converged by its own measure, not by the SPEC's
                    elif res["info"] > 0:
                        status = "max-iter"
                    else:
                        status = "error"
                solved += status == "converged"
                done += 1
                csv.write(",".join([csv_field(name), kind, str(nc), str(nnz), sname, status, str(it),
                                    "nan" if math.isnan(residual) else "%.6e" % residual,
                                    "%.6f" % seconds, "nan" if math.isnan(rss) else "%.1f" % rss]) + "\n")
                csv.flush()
                if not tty:
                    print("[%d/%d] %s %s: %s, %d it, residual %.2e, %.3f s" % (
                        done, total, name, sname, status, it, residual, seconds), file=sys.stderr)
    if tty:
        sys.stderr.write("\r\033[K")
    shutil.rmtree(tmp, ignore_errors=True)
    print("siconos_bench: %d problems, %d runs, %d solved to %g, in %s; %s/results.csv" % (
        len(files), done, solved, a.tol, fmt_duration(time.monotonic() - t0), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
