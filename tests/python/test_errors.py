"""Bad input raises ValueError / OSError (TypeError for a wrong type) with
the library's message, the one the command prints; nothing crashes."""
import math
import os

import numpy as np
import pytest
import scipy.sparse as sp

import fricon
from conftest import example, run_cli

CAPSULES = example("Capsules-i122-1617.dat")


def cli_message(*args):
    cp = run_cli(*args)
    assert cp.returncode == 2
    line = cp.stderr.strip().splitlines()[-1]
    assert line.startswith("fricon: ")
    return line[len("fricon: "):]


def bad_files(tmp):
    files = {
        "missing": os.path.join(tmp, "no-such-file.dat"),
        "truncated": os.path.join(tmp, "truncated.dat"),
        "garbage": os.path.join(tmp, "garbage.dat"),
        "bad-hdf5": os.path.join(tmp, "bad.hdf5"),
        "empty": os.path.join(tmp, "empty.dat"),
        "directory": tmp,
    }
    with open(files["truncated"], "w") as f:
        f.write("3\n2\n0 6 6\n6 6\n1 2 3\n")
    with open(files["garbage"], "w") as f:
        f.write("3 1 0 3 3 3 3 1 0 0 0 x 0 0 0 1\n")
    with open(files["bad-hdf5"], "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\nnot really")
    open(files["empty"], "w").close()
    return files


@pytest.mark.parametrize("kind", ["missing", "truncated", "garbage", "bad-hdf5", "empty", "directory"])
def test_read_errors_match_command(kind, tmp_path):
    path = bad_files(str(tmp_path))[kind]
    with pytest.raises((OSError, ValueError)) as exc:
        fricon.read(path)
    assert str(exc.value) == cli_message("info", path)
    if kind == "missing":
        assert isinstance(exc.value, OSError)


def test_write_error(tmp_path):
    p = fricon.read(CAPSULES)
    with pytest.raises(OSError):
        p.write(str(tmp_path / "no" / "such" / "dir" / "p.dat"))


def W3(n=1):
    return sp.eye(3 * n, format="csr") * 2.0


@pytest.mark.parametrize("args,kw,match", [
    ((np.ones((3, 4)), np.zeros(3), [0.5]), {}, "W"),
    ((np.eye(4), np.zeros(4), [0.5]), {}, "multiple of d"),
    ((W3(), np.zeros(4), [0.5]), {}, "q"),
    ((W3(), np.zeros(3), [0.5, 0.5]), {}, "mu"),
    ((W3(), np.zeros(3), [-0.5]), {}, "negative"),
    ((W3(), [0, np.nan, 0], [0.5]), {}, "NaN"),
    ((W3(), [0, np.inf, 0], [0.5]), {}, "infinite"),
    ((sp.csr_matrix(np.triu(np.ones((3, 3))) + np.eye(3)), np.zeros(3), [0.5]), {}, "symmetric"),
    ((sp.csr_matrix(np.diag([0.0, 1, 1])), np.zeros(3), [0.5]), {}, "diagonal"),
    ((np.eye(4), np.zeros(4), [0.5]), {"d": 4}, "d = 4"),
    ((np.eye(5), np.zeros(5), [0.5]), {"d": 5}, "mu_r"),
    ((W3(), np.zeros(3), [0.5]), {"mu_r": [0.1]}, "mu_r"),
    ((np.eye(3) * 1j, np.zeros(3), [0.5]), {}, "complex"),
    ((np.ones((3, 3, 3)), np.zeros(3), [0.5]), {}, "2-D"),
    (("not a matrix", np.zeros(3), [0.5]), {}, "W"),
    ((W3(), np.zeros((3, 3)), [0.5]), {}, "q"),
    ((sp.csr_matrix((3, 3)), np.zeros(3), [0.5]), {}, "diagonal"),
])
def test_bad_local_problems(args, kw, match):
    with pytest.raises(ValueError, match=match):
        fricon.LocalProblem(*args, **kw)


def test_bad_global_problems():
    M = sp.eye(6, format="csr")
    H = sp.random(6, 3, density=1, random_state=1, format="csr")
    ok = (M, H, np.zeros(6), np.zeros(3), [0.5])
    fricon.GlobalProblem(*ok)
    with pytest.raises(ValueError, match="H"):
        fricon.GlobalProblem(M, sp.random(5, 3, density=1, random_state=1), *ok[2:])
    with pytest.raises(ValueError, match="M"):
        fricon.GlobalProblem(sp.csr_matrix(np.triu(np.ones((6, 6)))), *ok[1:])
    with pytest.raises(ValueError, match="f"):
        fricon.GlobalProblem(M, H, np.zeros(5), *ok[3:])
    with pytest.raises(ValueError, match="w"):
        fricon.GlobalProblem(M, H, np.zeros(6), np.zeros(4), [0.5])
    with pytest.raises(ValueError, match="H"):
        fricon.GlobalProblem(M, sp.random(6, 4, density=1, random_state=1), np.zeros(6), np.zeros(4), [0.5])
    with pytest.raises(TypeError):
        fricon.Problem()


@pytest.fixture(scope="module")
def capsules():
    return fricon.read(CAPSULES)


@pytest.mark.parametrize("setting,value", [
    ("nsgs.omega", "3"), ("nsgs.omega", "abc"), ("nsgs.no_such", "1"), ("max_iter", "-1"),
    ("prox.inner_solver", "no-such-solver"), ("tolerance", "-1"), ("nsgs.local", "7"),
])
def test_bad_options_match_command(capsules, setting, value):
    msg = cli_message("solve", CAPSULES, "--set", f"{setting}={value}")
    assert msg.startswith("--set ")
    with pytest.raises(ValueError) as exc:
        fricon.solve(capsules, options={setting: value})
    assert str(exc.value) == msg[len("--set "):]
    # the same through a keyword
    with pytest.raises(ValueError):
        fricon.solve(capsules, **{setting.replace(".", "_"): value})


@pytest.mark.parametrize("kw,exc", [
    ({"solver": "no-such"}, ValueError), ({"tol": -1.0}, ValueError), ({"tol": math.nan}, ValueError),
    ({"max_iter": -1}, ValueError), ({"max_iter": 1.5}, ValueError), ({"time_limit": -2}, ValueError),
    ({"r0": np.zeros(5)}, ValueError), ({"r0": np.full(888, np.nan)}, ValueError),
    ({"threads": 0}, ValueError), ({"nsgs_omega": [1.0]}, ValueError), ({"callback": 3}, TypeError),
])
def test_bad_solve_arguments(capsules, kw, exc):
    with pytest.raises(exc):
        fricon.solve(capsules, **kw)


def test_unsupported_solver_matches_command(capsules):
    msg = cli_message("solve", CAPSULES, "--solver", "lemke")
    with pytest.raises(ValueError) as exc:
        fricon.solve(capsules, solver="lemke")
    assert msg == f"{CAPSULES}: {exc.value}"


def test_wrong_types(capsules):
    with pytest.raises(TypeError):
        fricon.solve("examples/Capsules-i122-1617.dat")
    with pytest.raises(TypeError):
        fricon.residual(None, np.zeros(3))
    with pytest.raises(ValueError):
        fricon.residual(capsules, np.zeros(4))
    with pytest.raises(ValueError):
        fricon.residual(capsules, np.zeros(capsules.m), v=np.zeros(3))
    with pytest.raises(TypeError):
        fricon.read(None)


def test_simulator_errors():
    with pytest.raises(ValueError):
        fricon.Scene("no-such-scene")
    s = fricon.Scene()
    with pytest.raises(ValueError):
        s.add_sphere(-1.0, (0, 0, 0))
    with pytest.raises(ValueError):
        s.add_plane((0, 0, 0))
    with pytest.raises(ValueError):
        s.configure(dt=-1)
    with pytest.raises(IndexError):
        s.set_velocity(3, (0, 0, 0))
    s.add_sphere(0.1, (0, 0, 1))
    with pytest.raises(ValueError):
        s.set_velocity(0, (0, np.nan, 0))
    with pytest.raises(ValueError):
        s.step(solver="no-such")
    with pytest.raises(ValueError):
        s.step(nsgs_omega=5)
