#!/bin/bash
# usage: laps.sh NP FILE ROUNDS BIN...   : the setup line (slowest rank) of each binary, alternated
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NP=$1 F=$2 R=$3; shift 3
for i in $(seq $R); do for bin in "$@"; do
  echo "$(basename $(dirname $(dirname $bin))) load $(cut -d' ' -f1 /proc/loadavg) $(mpirun -q --oversubscribe -np $NP $bin solve $F --solver dist-nncg --tol 1e-4 --max-iter 1 --verbose --verbose 2>&1 | grep waited | sed 's/.*setup CPU, the slowest rank.s: //')"
done; done
