#!/bin/bash
# partition variants at 2 ranks on tuning steps: sweeps to a tolerance, interface, own work
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/work/wt-dist7/build-exp/fricon
for spec in "/tmp/dist3-pile16k-s1/pile-000030.hdf5 2.5e-4" "/tmp/dist3-pile16k-s2/pile-000036.hdf5 5e-4" "/tmp/dist3-pile16k-s1/pile-000042.hdf5 4e-4"; do
  set -- $spec; f=$1 tol=$2
  for v in base "XUF=30" "XUF=100" "XREC=1" "XVOL=1" "XUF=30 XREC=1"; do
    envs=""; [ "$v" = base ] || envs="$v"
    out=$(env $envs nice -n 10 mpirun -q -np 2 $B solve $f --solver dist-nncg --tol $tol --max-iter 1500 --json --verbose --verbose 2>&1 | grep -v 'dist-nncg: [0-9]* \|sweep [0-9]')
    echo "== $(basename $(dirname $f))/$(basename $f) tol $tol [$v] $(uptime | sed 's/.*load/load/')"
    echo "$out" | grep -o 'interface: [0-9]* body copies\|contacts: [0-9]* on rank 0, [0-9]* on the busiest rank\|cost ([^)]*): [0-9]* on the busiest rank of [0-9]*\|converged after.*\|max-iter after.*\|"iterations": [0-9]*, "residual": [0-9.e+-]*'
  done
done
