#!/bin/sh
# Build and run the whole test suite (ctest).  --sanitize: the same suite
# built with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/.
set -e
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  set -- -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFRICON_SANITIZE=ON
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else
  dir=build
  set -- -DCMAKE_BUILD_TYPE=Release
fi
cmake -S . -B "$dir" "$@" >/dev/null
cmake --build "$dir" -j2
(cd "$dir" && ctest --output-on-failure -j2)
# the Python package (python/): installed into .venv, its pytest suite
if [ "$dir" = build ]; then
  sh scripts/python.sh
  .venv/bin/python3 -m pytest -q tests/python
fi
