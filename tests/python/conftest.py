"""The pytest suite of the Python package (run against the installed
package: .venv/bin/python3 -m pytest tests/python).  The shared problems
are reached as ../shared/data from the repository root (skipped when
absent), the bundled ones in examples/."""
import glob
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
BUILD = os.environ.get("FRICON_BUILD_DIR", os.path.join(ROOT, "build"))
FRICON = os.path.join(BUILD, "fricon")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))
EXAMPLES = os.path.join(ROOT, "examples")


def shared_problems():
    return sorted(glob.glob(os.path.join(SHARED, "*", "*.dat")) +
                  glob.glob(os.path.join(SHARED, "*", "*.hdf5")))


def example_problems():
    return sorted(glob.glob(os.path.join(EXAMPLES, "*.dat")) +
                  glob.glob(os.path.join(EXAMPLES, "*.hdf5")))


def example(name):
    return os.path.join(EXAMPLES, name)


def run_cli(*args):
    if not os.access(FRICON, os.X_OK):
        pytest.skip(f"{FRICON} not built")
    return subprocess.run([FRICON, *args], capture_output=True, text=True, timeout=600)


def problem_id(path):
    return os.path.relpath(path, os.path.dirname(SHARED) if path.startswith(SHARED) else ROOT)
