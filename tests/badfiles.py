#!/usr/bin/python3
"""A corpus of bad problem files, generated from the bundled examples and
the shared problems, each checked with `fricon info`, `fricon solve` and
`fricon convert` (solution files with `fricon check`): every case a file
must refuse exits 2 with exactly one line on stderr naming the file,
within 2 s of CPU time (a hang: 30 s of wall time) and a peak
resident size of 100 MB.  Cases that may turn out valid
(truncations inside the last number, bit flips) may also be accepted:
then info and convert succeed and solve ends with a status (exit 0 or 1,
its JSON read), never a crash or a hang.

Classes: truncations at many offsets, bit flips, bad values (NaN, Inf,
negative mu), mismatched sizes, non-symmetric W, indefinite or singular
M, trailing garbage, a q one number short before the isComplete flag,
CSparse columns listed twice or rows repeated (refused) or unsorted
(accepted, the same problem), broken HDF5 layouts (missing or extra
datasets and groups, wrong ranks, shapes and types; local, global,
rolling and 2D files), solution files.  HDF5 cases need h5py (Debian
python3-h5py); without it they are skipped and said so.

usage: badfiles.py FRICON EXAMPLES SHARED_DATA [--sanitize]  (77: skipped)"""
import concurrent.futures
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

BIN, EXAMPLES, SHARED = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
if "--sanitize" in sys.argv[4:]:
    print("badfiles: skipped in a sanitizer build (thousands of runs under ASan)")
    sys.exit(77)
CPU = 2.0             # seconds of CPU time per command (wall time is not
WALL = 30.0           # reliable on a loaded machine; it only catches hangs)
MEMORY = 100 << 20    # peak resident bytes per command
ADDRESS = 1 << 30     # address space (a runaway allocation fails): OpenBLAS
                      # maps a 128 MB buffer and retries forever below that
rng = random.Random(30)
MANY = int(os.environ.get("BADFILES_MANY", "3"))   # truncations, bit flips per source
failures, runs, accepted = [], 0, 0


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS, ADDRESS))


# OpenBLAS sets up its thread pool when loaded, before fricon tells it
# one thread: most of a short command's system time; with OMP_THREAD_LIMIT
# set, fricon does not start itself again to set them (half the startup)
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", OMP_THREAD_LIMIT="1")
POOL = concurrent.futures.ThreadPoolExecutor(max_workers=2)
pending = []
counter = threading.Lock()


def run(args):
    """(exit status, stdout, stderr, CPU seconds) of fricon ARGS under the
    limits; a peak resident size over MEMORY is recorded as a failure."""
    global runs
    with counter:
        runs += 1
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        p = subprocess.Popen([BIN] + args, stdout=fo, stderr=fe, preexec_fn=limit, env=ENV)
        timer = threading.Timer(WALL, p.kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        timer.cancel()
        p.returncode = rc = os.waitstatus_to_exitcode(status)
        if not timer.is_alive() and rc == -9:
            rc = "timeout"
        fo.seek(0)
        fe.seek(0)
        out = fo.read().decode(errors="replace")
        err = fe.read().decode(errors="replace")
    if ru.ru_maxrss * 1024 > MEMORY:
        fail(" ".join(args), f"peak resident size {ru.ru_maxrss // 1024} MB")
    return rc, out, err, ru.ru_utime + ru.ru_stime


def fail(case, what):
    failures.append(f"{case}: {what}")


def refused_ok(case, cmd, path, rc, err, secs):
    """A refusal of the right form; else the failure is recorded."""
    lines = err.splitlines()
    if rc != 2:
        fail(case, f"{cmd}: exit {rc}, expected 2; stderr {err.strip()[:200]!r}")
    elif len(lines) != 1:
        fail(case, f"{cmd}: {len(lines)} lines on stderr: {err.strip()[:300]!r}")
    elif os.path.basename(path) not in lines[0]:
        fail(case, f"{cmd}: message does not name the file: {lines[0]!r}")
    elif secs > CPU:
        fail(case, f"{cmd}: {secs:.2f} s")
    else:
        return True
    return False


def check(case, path, must_refuse, out_ext=None):
    """info, then solve or convert (in turn from case to case: they read
    through the same code as info) on path, in the pool (two at a time: the
    commands are short, most of their cost is starting the process)."""
    pending.append(POOL.submit(check_now, case, path, must_refuse, out_ext, len(pending) % 2))


def check_now(case, path, must_refuse, out_ext, turn):
    global accepted
    rc, out, err, secs = run(["info", path])
    if rc == 2 or must_refuse:
        refused_ok(case, "info", path, rc, err, secs)
        cmd = (["solve", path, "--json"], ["convert", path, path + ".out" + (out_ext or ".dat")])[turn]
        rc2, _, err2, secs2 = run(cmd)
        refused_ok(case, cmd[0], path, rc2, err2, secs2)
        return
    # accepted: a valid problem then
    with counter:
        accepted += 1
    if rc != 0 or secs > CPU:
        fail(case, f"info accepted it with exit {rc} in {secs:.2f} s: {err.strip()[:200]!r}")
    # equality constraints: no .dat (refused), and solvers without them refuse
    eq = re.search(r"^equalities: [1-9]", out, re.M) is not None
    rc, out, err, secs = run(["solve", path, "--json", "--time-limit", "0.5"])
    if eq and rc == 2 and "equality" in err:
        refused_ok(case, "solve", path, rc, err, secs)
    elif rc not in (0, 1) or secs > CPU:
        fail(case, f"solve after info accepted: exit {rc} in {secs:.2f} s: {err.strip()[:200]!r}")
    else:
        try:
            status = json.loads(out)["status"]
            if status not in ("converged", "max-iter", "time-limit", "diverged", "error", "stalled"):
                fail(case, f"solve: status {status}")
        except (ValueError, KeyError):
            fail(case, f"solve: no JSON: {out[:200]!r}")
    for ext in (".dat", ".hdf5"):
        rc, _, err, secs = run(["convert", path, path + ".conv" + ext])
        if eq and ext == ".dat":
            refused_ok(case, "convert", path, rc, err, secs)
        elif rc != 0 or secs > CPU:
            fail(case, f"convert to {ext} after info accepted: exit {rc}: {err.strip()[:200]!r}")


def tokens(text):
    """(start, end) of every whitespace-separated token."""
    spans, i, n = [], 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        j = i
        while j < n and not text[j].isspace():
            j += 1
        spans.append((i, j))
        i = j
    return spans


def write(tmp, name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def trailer(text, spans):
    """1 when the file ends with Siconos's isComplete flag line."""
    s, e = spans[-1]
    return int(e - s == 1 and text[s] in "01" and "\n" in text[spans[-2][1]:s])


def header(text):
    """d, nc, and the number of mu values (nc, or 2 nc with mu_r)."""
    t = text.split()
    d, nc = int(t[0]), int(t[1])
    return d, nc, 2 * nc if d == 5 else nc


def bit_flips(tmp, raw, tag, ext, label, many):
    """many copies of raw with one bit flipped each: may be read as another
    valid problem, never a crash or a hang."""
    for k in range(many):
        b = bytearray(raw)
        pos = rng.randrange(len(b))
        b[pos] ^= 1 << rng.randrange(8)
        path = write(tmp, f"{tag}-flip{k}{ext}", bytes(b))
        check(f"{tag} {label}bit {pos}", path, must_refuse=False)


def dat_cases(tmp, src, tag, many):
    text = open(src).read()
    spans = tokens(text)
    d, nc, ncoef = header(text)
    tr = trailer(text, spans)
    last_coef = spans[-1 - tr]           # the last mu (or mu_r)
    first_coef = spans[-ncoef - tr]
    # truncations: fewer numbers must be refused; inside the last one may read
    offsets = sorted(set([0, 1, 2, 3, len(text) // 2, len(text) - 1] +
                         [rng.randrange(len(text)) for _ in range(many)] +
                         [s for s, _ in spans[::max(1, len(spans) // many)]]))
    for k, off in enumerate(offsets):
        path = write(tmp, f"{tag}-trunc{k}.dat", text[:off])
        check(f"{tag} truncated at {off}", path, must_refuse=off <= last_coef[0])
    bit_flips(tmp, open(src, "rb").read(), tag, ".dat", "", many)

    def replace(span, new, name):
        s, e = span
        path = write(tmp, f"{tag}-{name}.dat", text[:s] + new + text[e:])
        check(f"{tag} {name}", path, must_refuse=True)

    # bad values
    replace(first_coef, "-0.5", "mu-negative")
    replace(first_coef, "nan", "mu-nan")
    replace(last_coef, "inf", "coef-inf")
    q_last = spans[-ncoef - tr - 1]
    replace(q_last, "nan", "vector-nan")
    replace(q_last, "-inf", "vector-inf")
    replace(q_last, "1e400", "vector-overflow")
    replace(q_last, "0x", "vector-word")
    replace(spans[0], str(d + 1) if d != 3 else "4", "dimension")
    replace(spans[1], str(nc + 1), "nc-plus")
    replace(spans[1], "0", "nc-zero")
    replace(spans[1], "-3", "nc-negative")
    replace(spans[1], "99999999", "nc-huge")
    if nc > 1:
        replace(spans[1], str(nc - 1), "nc-minus")
    replace(spans[3], "7", "rows")       # the first matrix's declared rows
    replace(spans[2], "9", "storage")
    # a q one number short before the isComplete flag
    if tr:
        s, e = q_last
        path = write(tmp, f"{tag}-qshort.dat", text[:s] + text[e:])
        check(f"{tag} vector one short before the flag", path, must_refuse=True)
    else:
        path = write(tmp, f"{tag}-flag.dat", text.rstrip() + "\n1\n")
        check(f"{tag} isComplete flag appended", path, must_refuse=False)
    # trailing data
    for k, extra in enumerate(["garbage\n", "\n1 2 3\n", "\n0\n0\n", "\n2\n", text]):
        path = write(tmp, f"{tag}-trail{k}.dat", text.rstrip() + "\n" + extra)
        check(f"{tag} trailing {extra[:12]!r}", path, must_refuse=True)
    path = write(tmp, f"{tag}-nul.dat", text[:len(text) // 2] + "\0" + text[len(text) // 2:])
    check(f"{tag} NUL byte", path, must_refuse=True)


def dense_matrix_cases(tmp, src, tag, global_):
    """Edits of the first dense matrix (W or M, d*nc or n square)."""
    text = open(src).read()
    spans = tokens(text)
    rows = int(text[spans[3][0]:spans[3][1]])
    entry = lambda i, j: spans[7 + i * rows + j]   # after `0 R C R C`
    def edit(changes, name):
        out, last = [], 0
        for (s, e), new in sorted(changes):
            out += [text[last:s], new]
            last = e
        path = write(tmp, f"{tag}-{name}.dat", "".join(out) + text[last:])
        check(f"{tag} {name}", path, must_refuse=True)
    edit([(entry(0, 1), "1e6")], "nonsymmetric")
    edit([(entry(i, i), "-" + text[entry(i, i)[0]:entry(i, i)[1]].lstrip("-")) for i in range(rows)],
         "negative-diagonal")
    edit([(entry(i, j), "0") for i in range(rows) for j in range(rows)], "zero-matrix")
    if global_:
        edit([(entry(0, 0), "0")] + [(entry(0, j), "0") for j in range(1, rows)] +
             [(entry(j, 0), "0") for j in range(1, rows)], "singular-M")


def csparse(rows, cols, entries, shuffle=False, twice=None, duprow=False):
    """A cs_print dump of a compressed-column matrix."""
    out = ["2", "CSparse Version 3.1.9, May 4, 2016.  Copyright (c) Timothy A. Davis, 2006-2016"]
    bycol = [[(i, x) for (i, j, x) in entries if j == c] for c in range(cols)]
    if duprow:
        for c in bycol:
            if c:
                c.append(c[0])
                break
    nnz = sum(len(c) for c in bycol)
    out.append(f"{rows}-by-{cols}, nzmax: {nnz} nnz: {nnz}, 1-norm: 1")
    loc = 0
    order = list(range(cols))
    if twice is not None:
        order.insert(twice + 1, twice)
    for c in order:
        col = list(bycol[c])
        if shuffle:
            rng.shuffle(col)
        out.append(f"    col {c} : locations {loc} to {loc + len(col) - 1}")
        out += [f"      {i} : {x!r}" for i, x in col]
        loc += len(col)
    return "\n".join(out)


def csparse_cases(tmp, src, tag):
    """Rewrite a dense local .dat with W in CSparse compressed form."""
    t = open(src).read().split()
    d, nc = int(t[0]), int(t[1])
    m = d * nc
    vals = [float(v) for v in t[7:7 + m * m]]   # after `0 m m m m`
    rest = t[7 + m * m:7 + m * m + m + nc]
    entries = [(i, j, vals[i * m + j]) for i in range(m) for j in range(m) if vals[i * m + j] != 0]
    def make(name, **kw):
        body = csparse(m, m, entries, **kw)
        return write(tmp, f"{tag}-{name}.dat", f"{d}\n{nc}\n2\n{m}\n{m}\n{body}\n"
                     + " ".join(rest[:m]) + "\n" + " ".join(rest[m:]) + "\n")
    sorted_path = make("cs-sorted")
    base = run(["solve", sorted_path, "--json", "--solver", "nsgs"])
    rng_state = rng.getstate()
    unsorted = make("cs-unsorted", shuffle=True)
    rng.setstate(rng_state)
    got = run(["solve", unsorted, "--json", "--solver", "nsgs"])
    if base[0] != 0 or got[0] != 0 or json.loads(base[1])["residual"] != json.loads(got[1])["residual"]:
        fail(f"{tag} CSparse unsorted rows", f"not read as the sorted file: {base[:3]} vs {got[:3]}")
    check(f"{tag} CSparse column twice", make("cs-twice", twice=1), must_refuse=True)
    check(f"{tag} CSparse row twice", make("cs-duprow", duprow=True), must_refuse=True)


def hdf5_cases(tmp, dat, tag):
    import h5py
    import numpy as np
    base = os.path.join(tmp, f"{tag}.hdf5")
    rc, _, err, _ = run(["convert", dat, base])   # an .hdf5 source is copied
    if rc != 0:
        fail(tag, f"convert {dat}: {err.strip()}")
        return
    with h5py.File(base, "r") as f:
        group = next(k for k in f.keys() if k.startswith("fclib_"))
        names = []
        f[group].visit(lambda n: names.append(n) if isinstance(f[group][n], h5py.Dataset) else None)
    k = [0]

    def variant(name, edit, must_refuse=True):
        path = os.path.join(tmp, f"{tag}-{k[0]}.hdf5")
        k[0] += 1
        shutil.copy(base, path)
        with h5py.File(path, "r+") as f:
            edit(f, f[group])
        check(f"{tag} {name}", path, must_refuse=must_refuse, out_ext=".hdf5")

    def full_r(g):   # R as a full matrix of values 0, 1, ... (row-compressed)
        n = int(g["R/n"][()].ravel()[0])
        replace(g, "R/p", np.arange(0, n * n + 1, n, dtype="i4"))
        replace(g, "R/i", np.tile(np.arange(n, dtype="i4"), n))
        replace(g, "R/x", np.arange(n * n, dtype=float))
        replace(g, "R/nz", np.array([-2], "i4"))
        replace(g, "R/nzmax", np.array([n * n], "i4"))

    def replace(g, n, data):
        del g[n]
        g[n] = data

    for n in names:
        variant(f"no {n}", lambda f, g, n=n: g.__delitem__(n), must_refuse=not n.startswith("info/"))
        data = g_data = None
        with h5py.File(base, "r") as f:
            g_data = f[group][n][()]
        arr = np.atleast_1d(g_data)
        if arr.dtype.kind in "fiu":
            variant(f"{n} as 2-D", lambda f, g, n=n, a=arr: replace(g, n, a.reshape(1, -1)))
            variant(f"{n} one longer", lambda f, g, n=n, a=arr: replace(g, n, np.append(a, a[:1])))
            if arr.size > 1 or arr.dtype.kind == "f":
                variant(f"{n} one shorter", lambda f, g, n=n, a=arr: replace(g, n, a[:-1]))
            other = arr.astype(np.float64 if arr.dtype.kind in "iu" else np.int32)
            if not (arr.dtype.kind == "f" and np.all(other == arr)):
                variant(f"{n} of another type", lambda f, g, n=n, a=other: replace(g, n, a))
            variant(f"{n} as a string", lambda f, g, n=n: replace(g, n, np.bytes_("12")))
        if arr.dtype.kind == "f" and n.startswith("vectors/"):
            variant(f"{n} NaN", lambda f, g, n=n, a=arr: replace(g, n, np.where(np.arange(a.size) == 0, np.nan, a)))
            variant(f"{n} Inf", lambda f, g, n=n, a=arr: replace(g, n, np.where(np.arange(a.size) == 0, np.inf, a)))
        if n.endswith("mu") or n.endswith("mu_r"):
            variant(f"{n} negative", lambda f, g, n=n, a=arr: replace(g, n, -np.abs(a) - 0.5))
    variant("spacedim 4", lambda f, g: replace(g, "spacedim", np.array([4], dtype=np.int32)))
    variant("a second problem group", lambda f, g: f.copy(g, "/fclib_global" if "local" in group else "/fclib_local"))
    variant("no problem group", lambda f, g: f.move(group, "/elsewhere"))
    variant("an extra dataset", lambda f, g: g.create_dataset("extra", data=np.zeros(3)), must_refuse=False)
    mat = "M" if "global" in group else "W"
    variant(f"{mat} index out of range",
            lambda f, g: replace(g, f"{mat}/i", np.where(np.arange(g[f"{mat}/i"].size) == 0, 10 ** 6, g[f"{mat}/i"][()])))
    variant(f"{mat} x NaN", lambda f, g: replace(g, f"{mat}/x", np.full(g[f"{mat}/x"].size, np.nan)))
    variant(f"{mat} negated", lambda f, g: replace(g, f"{mat}/x", -g[f"{mat}/x"][()]))
    variant(f"{mat} a group as dataset", lambda f, g: (g.__delitem__(f"{mat}/x"), g.create_group(f"{mat}/x")))
    with h5py.File(base, "r") as f:
        E = "G" if "G" in f[group] else "V" if "V" in f[group] else None
    if E:   # equality constraints (issue 31): their own inconsistencies
        vec = "vectors/b" if E == "G" else "vectors/s"
        variant(f"{E} one row more", lambda f, g: replace(g, f"{E}/m", g[f"{E}/m"][()] + 1))
        variant(f"{E} one column more", lambda f, g: replace(g, f"{E}/n", g[f"{E}/n"][()] + 1))
        variant(f"{vec} without {E}", lambda f, g: g.__delitem__(E))
        variant(f"{E} x NaN", lambda f, g: replace(g, f"{E}/x", np.full(g[f"{E}/x"].size, np.nan)))
        if E == "V":
            variant("R not square", lambda f, g: replace(g, "R/n", g["R/n"][()] + 1))
            variant("R far from symmetric", lambda f, g: full_r(g))
            variant("R absent (zero)", lambda f, g: g.__delitem__("R"), must_refuse=False)
    # byte-level damage of the whole file
    raw = open(base, "rb").read()
    for j, off in enumerate(sorted(set([0, 8, 512, len(raw) // 3, len(raw) // 2, len(raw) - 100]))):
        path = write(tmp, f"{tag}-cut{j}.hdf5", raw[:off])
        check(f"{tag} HDF5 truncated at {off}", path, must_refuse=True)
    bit_flips(tmp, raw, tag, ".hdf5", "HDF5 ", MANY)


def solution_cases(tmp, dat, tag):
    sol = os.path.join(tmp, f"{tag}.sol")
    rc, _, err, _ = run(["solve", dat, "--output", sol])
    if rc not in (0, 1):
        fail(tag, f"solve --output: {err.strip()}")
        return
    text = open(sol).read()
    lines = text.splitlines()
    num = [i for i, l in enumerate(lines) if l.strip() and not l.startswith("#")]
    cases = {"truncated": text[:len(text) // 2], "empty": "",
             "nan": "\n".join(l if i != num[0] else "nan" for i, l in enumerate(lines)) + "\n",
             "line missing": "\n".join(l for i, l in enumerate(lines) if i != num[-1]) + "\n",
             "extra line": text + "1.0\n", "word": text.replace(lines[num[0]], "abc", 1)}
    for name, data in cases.items():
        path = write(tmp, f"{tag}-{name.replace(' ', '-')}.sol", data)
        rc, out, err, secs = run(["check", dat, path])
        refused_ok(f"{tag} solution {name}", "check", path, rc, err, secs)


def main():
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="fricon-badfiles-")
    try:
        S = SHARED
        sources = [  # (file, tag, storage) small files of every kind and storage
            (f"{S}/fc3d/FC3D_Example1.dat", "fc3d-dense", "dense"),
            (f"{S}/fc3d/FC3D_Example1_SBM.dat", "fc3d-sbm", "sbm"),
            (f"{S}/fc3d/Confeti-ex13-4contact-Fc3D-SBM.dat", "fc3d-sbm2", "sbm"),
            (f"{S}/fc2d/FC2D_SliderCrankLagrangian00000.dat", "fc2d-dense", "dense"),
            (f"{S}/fc2d/FrictionContactProblem00394.dat", "fc2d-dense2", "dense"),
            (f"{S}/global/GFC3D_Example00.dat", "global-dense", "dense"),
            (f"{S}/global/GFC3D_Example1.dat", "global-sbm", "sbm"),
            (f"{S}/rolling/RFC3D_sphere_1.dat", "rolling-dense", "dense"),
            (f"{EXAMPLES}/Rover1039.dat", "example-rover", "dense"),
        ]
        for src, tag, storage in sources:
            if not os.path.exists(src):
                fail(tag, f"missing source {src}")
                continue
            dat_cases(tmp, src, tag, MANY)
            if storage == "dense":
                dense_matrix_cases(tmp, src, tag, tag.startswith("global"))
        cs = f"{S}/fc2d/fc2d_granularflowonwall_00667_00000.dat"
        if os.path.exists(cs):   # CSparse compressed, unsorted rows: read
            rc, _, err, _ = run(["info", cs])
            if rc != 0:
                fail("granularflow", f"the shared CSparse file is refused: {err.strip()}")
            dat_cases(tmp, cs, "fc2d-csparse", 2)
        csparse_cases(tmp, f"{S}/fc3d/FC3D_Example1.dat", "fc3d-cs")
        csparse_cases(tmp, f"{S}/fc2d/FC2D_SliderCrankLagrangian00000.dat", "fc2d-cs")
        try:
            import h5py  # noqa: F401
            have_h5py = True
        except ImportError:
            have_h5py = False
            print("h5py missing (Debian python3-h5py): HDF5 layout cases skipped")
        if have_h5py:
            eq = []   # problems with equality constraints, made by tests/eqcheck.py
            for tag, extra in (("h5-eq-global", []), ("h5-eq-local", ["--local"])):
                path = os.path.join(tmp, f"{tag}-src.hdf5")
                r = subprocess.run([sys.executable, os.path.join(HERE, "eqcheck.py"), "make",
                                    f"{S}/global/Box_Stacks-i0122-82-5.hdf5", path, path + ".sol", "3", "1"] + extra,
                                   capture_output=True, text=True)
                if r.returncode:
                    fail(tag, f"eqcheck.py make: {r.stderr.strip()[-300:]}")
                else:
                    eq.append((path, tag))
            for src, tag in eq + [(f"{S}/fc3d/FC3D_Example1.dat", "h5-local"),
                             (f"{S}/global/GFC3D_Example1.dat", "h5-global"),
                             (f"{S}/rolling/RFC3D_sphere_1.dat", "h5-rolling"),
                             (f"{S}/fc2d/FC2D_SliderCrankLagrangian00000.dat", "h5-2d")]:
                hdf5_cases(tmp, src, tag)
        solution_cases(tmp, f"{S}/fc3d/FC3D_Example1.dat", "sol-fc3d")
        solution_cases(tmp, f"{S}/global/GFC3D_Example1.dat", "sol-global")
        for f in pending:   # every case checked (and its exception raised)
            f.result()
    finally:
        POOL.shutdown(wait=True)
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print(f"badfiles: {runs} runs, {accepted} cases read as valid problems, "
          f"{len(failures)} failures, {time.monotonic() - t0:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
