"""Build of the fricon extension (fricon._fricon) against libfricon.

The library is built by CMake first (README's set-up command); this build
links its static libfricon.a (built with -fPIC) and the libraries CMake
found for it, read from the build directory's CMakeCache.txt, so both
use the same dependencies.  FRICON_BUILD_DIR names the CMake build
directory (default: ../build beside this directory).
"""
import os
import re

import numpy
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.abspath(os.environ.get("FRICON_BUILD_DIR", os.path.join(ROOT, "build")))

# The cache entries holding the libraries libfricon links (CMakeLists.txt).
CACHE_KEYS = ["FCLIB_LIBRARY", "HDF5_C_LIBRARY_hdf5", "SS_cholmod", "SS_umfpack", "SS_klu",
              "SS_amd", "SS_colamd", "SS_camd", "SS_ccolamd", "SS_cxsparse",
              "SS_suitesparseconfig", "LAPACKE_LIBRARY", "OPENBLAS_LIBRARY"]
# Used when the cache cannot be read (the Libs.private of fricon.pc).
FALLBACK = ["-lfclib", "-lhdf5_serial", "-lcholmod", "-lumfpack", "-lklu", "-lamd", "-lcolamd",
            "-lcamd", "-lccolamd", "-lcxsparse", "-lsuitesparseconfig", "-llapacke", "-lopenblas"]
# libfricon's OpenMP kernels link gcc's libgomp (-fopenmp below).


def dependencies():
    cache = os.path.join(BUILD, "CMakeCache.txt")
    try:
        with open(cache) as f:
            entries = dict(re.findall(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", f.read(), re.M))
    except OSError:
        return FALLBACK
    libs = [entries[k] for k in CACHE_KEYS if entries.get(k) and not entries[k].endswith("-NOTFOUND")]
    return libs if len(libs) == len(CACHE_KEYS) else FALLBACK


lib = os.path.join(BUILD, "libfricon.a")
if not os.path.exists(lib):
    raise SystemExit(f"fricon: {lib} not found: build the library first "
                     "(cmake -S . -B build && cmake --build build), or set FRICON_BUILD_DIR")

setup(
    ext_modules=[
        Extension(
            "fricon._fricon",
            sources=["fricon/_fricon.c"],
            include_dirs=[os.path.join(ROOT, "include"), numpy.get_include()],
            extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                                "-Wno-cast-function-type"],
            extra_objects=[lib],
            # rebuilt and relinked whenever the library or its headers change
            depends=[lib, os.path.join(ROOT, "include", "fricon.h"),
                     os.path.join(ROOT, "include", "fricon_options.h"),
                     os.path.join(ROOT, "include", "fricon_mbd.h")],
            extra_link_args=dependencies() + ["-fopenmp", "-lm", "-ldl"],
        )
    ],
)
