#!/bin/sh
# Build and run the whole test suite (ctest).  --sanitize: the same suite
# built with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/.
# --tsan: the threaded tests (ctest -L threads) built with ThreadSanitizer
# in build-tsan/, by clang with LLVM's libomp: its Archer tool tells TSan
# what OpenMP's barriers order (gcc's libgomp is not instrumented and its
# barriers look like races).
# --mpi: the distributed solvers' tests (ctest -L mpi: dist-* under
# mpirun -np 2 and -np 4) in build-mpi/, built with -DFRICON_MPI=ON after
# install-deps.sh --mpi (Open MPI, METIS); only the command is built.
set -e
case "${1:-}" in
  ""|--mpi|--sanitize|--tsan) ;;
  -h|--help) sed -n '2,10s/^# \{0,1\}//p' "$0"; echo "usage: sh scripts/test.sh [--sanitize|--tsan|--mpi]"; exit 0 ;;
  *) echo "scripts/test.sh: unknown option '$1' (usage: sh scripts/test.sh [--sanitize|--tsan|--mpi])" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
label=""
targets=""
if [ "${1:-}" = "--mpi" ]; then
  sh scripts/install-deps.sh --mpi
else
  sh scripts/install-deps.sh
fi
if [ "${1:-}" = "--mpi" ]; then
  dir=build-mpi
  label="-L mpi"
  targets=fricon_cli
  set -- -DCMAKE_BUILD_TYPE=Release -DFRICON_MPI=ON
elif [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  set -- -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFRICON_SANITIZE=ON
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
elif [ "${1:-}" = "--tsan" ]; then
  dir=build-tsan
  label="-L threads"
  set -- -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFRICON_SANITIZE_THREAD=ON -DCMAKE_C_COMPILER=clang
  # ignore_noninstrumented_modules: accesses inside libraries built
  # without TSan (libomp itself, OpenBLAS, SuiteSparse, HDF5) are not
  # checked, as Archer asks; every access in fricon's code is.  The
  # suppressions: libomp's own pthread calls (tests/tsan/suppressions.txt
  # says why).  halt_on_error: the first race fails the test (exit 66).
  TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1 exitcode=66 suppressions=$(pwd)/tests/tsan/suppressions.txt"
  export TSAN_OPTIONS
  export OMP_WAIT_POLICY=passive
else
  dir=build
  set -- -DCMAKE_BUILD_TYPE=Release
fi
cmake -S . -B "$dir" "$@" >/dev/null
if [ -n "$label" ]; then
  # only the labelled tests' executables (and the library under them)
  # shellcheck disable=SC2086 # label is one option and its value
  [ -n "$targets" ] || targets=$(cd "$dir" && ctest -N $label | sed -n 's/^ *Test *#[0-9]*: //p')
  # shellcheck disable=SC2086 # one target per word
  cmake --build "$dir" -j2 --target $targets
else
  cmake --build "$dir" -j2
fi
# shellcheck disable=SC2086 # label is one option and its value, or nothing
(cd "$dir" && ctest --output-on-failure -j2 $label)
# the Python package (python/): installed into .venv, its pytest suite
if [ "$dir" = build ]; then
  sh scripts/python.sh
  .venv/bin/python3 -m pytest -q tests/python
fi
