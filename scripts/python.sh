#!/bin/sh
# Install the Python package (python/, `import fricon`) into .venv in the
# checkout: a virtual environment of Debian's /usr/bin/python3 that sees
# Debian's numpy and scipy (--system-site-packages), the package built
# offline against build/libfricon.a (FRICON_BUILD_DIR to use another CMake
# build directory).  Run after the CMake build; run again after changes.
set -e
cd "$(dirname "$0")/.."
# a relative FRICON_BUILD_DIR names a folder of the checkout (pip builds in python/)
case "${FRICON_BUILD_DIR:-}" in
    ""|/*) ;;
    *) FRICON_BUILD_DIR="$(pwd)/$FRICON_BUILD_DIR"; export FRICON_BUILD_DIR ;;
esac
[ -x .venv/bin/python3 ] || /usr/bin/python3 -m venv --system-site-packages .venv
# the environment is not part of the checkout
[ -f .venv/.gitignore ] || printf '*\n' > .venv/.gitignore
.venv/bin/python3 -m pip install --quiet --no-build-isolation --no-index --no-deps \
    --disable-pip-version-check ./python
