"""examples/python/convergence.py runs three solvers and writes its PNG."""
import os
import subprocess
import sys

from conftest import ROOT


def test_convergence_example_writes_png(tmp_path):
    out = tmp_path / "convergence.png"
    cp = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "convergence.py"),
                         "--out", str(out), "--max-iter", "300"],
                        capture_output=True, text=True, timeout=300)
    assert cp.returncode == 0, cp.stderr
    assert out.stat().st_size > 10000
    with open(out, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert len([ln for ln in cp.stdout.splitlines() if "iterations" in ln]) == 3
