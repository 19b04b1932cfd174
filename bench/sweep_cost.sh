#!/bin/bash
# The cost of the velocity-form sweep (nncg, dist-nncg at one rank) by its
# data layout, nncg.sweep_data 0 (CSR rows of H^T and G^T), 1 (per
# contact, G stored), 2 (per contact, G from M^-1's blocks): each step
# solved to --tol within --sweeps, the layouts alternating, --reps times;
# per run the sweeps, the error and the CPU seconds of the iterations
# (nncg's log; dist-nncg's "sweeping and measuring", its own work), so a
# loaded machine still compares them in CPU per sweep (docs/distributed.md).
# usage: bench/sweep_cost.sh [--fricon PATH] [--fricon-mpi PATH] [--reps N] [--tol T]
#                            [--sweeps N] [--modes "0 1 2"] [--solvers "nncg dist-nncg"] STEP...
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FRICON=$HERE/../build/fricon FMPI=$HERE/../build-mpi/fricon REPS=2 TOL=1e-4 SWEEPS=1500
MODES="0 1 2" SOLVERS="nncg dist-nncg" STEPS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fricon) FRICON=$2; shift 2 ;;
    --fricon-mpi) FMPI=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --tol) TOL=$2; shift 2 ;;
    --sweeps) SWEEPS=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    --solvers) SOLVERS=$2; shift 2 ;;
    *) STEPS+=("$1"); shift ;;
  esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
printf "%-28s %-9s %4s %3s %6s %10s %9s %9s %6s\n" step solver data rep sweeps error "cpu s" "ms/sweep" load
for step in "${STEPS[@]}"; do
  for rep in $(seq "$REPS"); do
    for solver in $SOLVERS; do
      for mode in $MODES; do
        bin=$FRICON; [ "${solver#dist-}" != "$solver" ] && bin=$FMPI
        load=$(cut -d' ' -f1 /proc/loadavg)
        line=$("$bin" solve "$step" --solver "$solver" --tol "$TOL" --max-iter "$SWEEPS" \
                 --set nncg.sweep_data="$mode" --verbose 2>&1 | grep -E "^$solver: [a-z-]+ after")
        sweeps=$(echo "$line" | sed -E 's/.* after ([0-9]+) (sweeps|iterations).*/\1/')
        err=$(echo "$line" | sed -E 's/.*error ([0-9.e+-]+).*/\1/')
        if [ "$solver" = nncg ]; then cpu=$(echo "$line" | sed -E 's/.*the iterations ([0-9.]+) s CPU.*/\1/')
        else cpu=$(echo "$line" | sed -E 's/.*sweeping and measuring ([0-9.]+) s.*/\1/'); fi
        printf "%-28s %-9s %4s %3s %6s %10s %9s %9.3f %6s\n" "$(basename "$(dirname "$step")")/$(basename "$step" .hdf5)" \
          "$solver" "$mode" "$rep" "$sweeps" "$err" "$cpu" "$(echo "$cpu * 1000 / $sweeps" | bc -l)" "$load"
      done
    done
  done
done
