"""fricon.read(path, guess=True): the file's first FClib guess, as
`fricon solve` uses it (an exported simulation step; the bundled Capsules
file, which carries one; a .dat file, which has none)."""
import os
import subprocess

import numpy as np
import pytest

import fricon
from conftest import EXAMPLES, FRICON

CAPSULES = os.path.join(EXAMPLES, "Capsules-i125-1213.hdf5")


def test_guess_of_an_exported_step(tmp_path):
    if not os.path.exists(FRICON):
        pytest.skip("no fricon binary")
    subprocess.run([FRICON, "simulate", "stack", "--steps", "3", "--every", "3", "--solver", "nsgs",
                    "--export", str(tmp_path), "--quiet"], check=True, capture_output=True)
    p, g = fricon.read(str(tmp_path / "stack-000003.hdf5"), guess=True)
    assert g is not None and g["r"].shape == (3 * p.nc,) and g["v"].shape == (p.n,)
    assert np.all(np.isfinite(g["r"])) and g["r"].max() > 0
    cold = fricon.solve(p, solver="nsgs")
    warm = fricon.solve(p, solver="nsgs", r0=g["r"])
    assert warm.converged and cold.converged and warm.iterations < cold.iterations


def test_guess_absent_and_present():
    p, g = fricon.read(os.path.join(EXAMPLES, "FC3D_Example1.dat"), guess=True)
    assert g is None and p.nc > 0
    p, g = fricon.read(CAPSULES, guess=True)
    assert g is not None and g["r"].shape == (3 * p.nc,) and g["v"] is None
    assert isinstance(fricon.read(CAPSULES), fricon.Problem)
