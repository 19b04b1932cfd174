#!/bin/bash
# usage: run.sh NP FILE BIN [args]  -> one line summary
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NP=$1 F=$2 BIN=$3; shift 3
out=$(/usr/bin/time -f "mpiwall %e" mpirun -q --oversubscribe -np $NP ${OWN:+setsid -w} $BIN solve $F --solver dist-nncg --tol 1e-4 --max-iter 1500 --verbose --verbose --json "$@" 2>&1)
echo "np$NP load $(cut -d' ' -f1 /proc/loadavg) $(echo "$out" | grep -o 'interface: [0-9]* body copies' | cut -d' ' -f2)cp $(echo "$out" | grep -o 'contacts: [0-9]* on rank 0, [0-9]*' | sed 's/contacts: //; s/ on rank 0,//') | $(echo "$out" | grep 'after' | sed 's/.*after \([0-9]*\) iterations.*error \([0-9.e+-]*\), \([0-9.]*\) s (distributed iterations: \([0-9.]*\) s CPU.*measuring \([0-9.]*\) s (rank \([0-9]\); the least busy, rank [0-9], \([0-9.]*\) s).*setup \([0-9.]*\) s CPU.*/it \1 err \2 sec \3 iters \4 own \5(r\6) least \7 setup \8/') $(echo "$out" | grep mpiwall)"
