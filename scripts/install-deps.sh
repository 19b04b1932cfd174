#!/bin/sh
# Install fricon's build and test dependencies from Debian when missing.
# Run as root (or through sudo); does nothing when everything is present.
# --bench: also Siconos 4.4 (python3-siconos), which only
# bench/compare-siconos.sh uses.  --mpi: also Open MPI and METIS, which
# only the -DFRICON_MPI=ON build (src/dist/, docs/distributed.md) uses.
set -e
PKGS="build-essential cmake pkg-config libfclib-dev libhdf5-dev libsuitesparse-dev \
liblapacke-dev libopenblas-dev gnuplot-nox python3-numpy python3-scipy python3-h5py \
python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-matplotlib python3-pytest \
clang libomp-dev"
for arg in "$@"; do
  case "$arg" in
    --bench) PKGS="$PKGS python3-siconos" ;;
    --mpi) PKGS="$PKGS libopenmpi-dev openmpi-bin libmetis-dev" ;;
    *) echo "install-deps.sh: unknown argument '$arg' (--bench, --mpi)" >&2; exit 2 ;;
  esac
done
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq $missing >/dev/null
