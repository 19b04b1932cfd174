#!/bin/bash
# Strong scaling of the distributed solvers (docs/distributed.md): the
# simulator's column step of about 10^5 contacts (27000 spheres, step 2,
# exported as bench/mbd_scale.sh does; or --step FILE), solved at 1 and
# 2 ranks in one run to --tol within --sweeps sweeps; each rank's CPU
# seconds (/usr/bin/time) and the solver's own split of its CPU (its work
# against time inside MPI).  The issue's wall-time target (2 ranks 1.6x
# faster) needs an idle machine.
# usage: bench/dist_scale.sh [--fricon PATH] [--out DIR] [--sweeps N] [--count N]
#                            [--solver NAME] [--tol T] [--step FILE]
# needs the -DFRICON_MPI=ON build (default build-mpi/fricon); defaults:
# dist-nncg, 1e-4, 5000 sweeps.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FRICON=$HERE/../build-mpi/fricon OUT=bench-dist SWEEPS=5000 COUNT=27000
SOLVER=dist-nncg TOL=1e-4 STEP=
while [ $# -gt 0 ]; do
  case "$1" in
    --fricon) FRICON=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --sweeps) SWEEPS=$2; shift 2 ;;
    --count) COUNT=$2; shift 2 ;;
    --solver) SOLVER=$2; shift 2 ;;
    --tol) TOL=$2; shift 2 ;;
    --step) STEP=$2; shift 2 ;;
    *) echo "dist_scale.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"
step=${STEP:-$OUT/column-$COUNT/column-000002.hdf5}
[ -f "$step" ] || "$FRICON" simulate column --count "$COUNT" --steps 2 --every 2 --solver nsgs \
  --max-iter 50 --quiet --export "$OUT/column-$COUNT" >/dev/null 2>&1
[ -f "$step" ] || { echo "dist_scale.sh: no step exported" >&2; exit 1; }
for np in 1 2; do
  echo "== $np rank(s), $(uptime)"
  mpirun -q --oversubscribe -np $np /usr/bin/time -f "rank cpu %U s user %S s sys %e s wall" \
    "$FRICON" solve "$step" --solver "$SOLVER" --tol "$TOL" --max-iter "$SWEEPS" --verbose --json 2>&1 \
    | grep -E "$SOLVER[: ]|rank cpu|\"residual\""
done
