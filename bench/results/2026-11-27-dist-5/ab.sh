#!/bin/bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
F=/tmp/d5/ab/fricon S=/tmp/dist3-pile16k-s1/pile-000036.hdf5
for round in 1 2 3; do
  for np in 1 2; do
    for cfg in F U FO UO; do
      [ $np = 1 ] && [ ${#cfg} = 2 ] && continue
      envs=()
      [[ $cfg == U* ]] && envs+=(-x FRICON_DIST_UNFUSED=1)
      [[ $cfg == *O ]] && envs+=(-x FRICON_DIST_OLDPART=1)
      out=$(mpirun -q -np $np "${envs[@]}" $F solve $S --solver dist-nncg --tol 1e-4 --max-iter 200 --verbose 2>&1 | grep -o "after.*measuring [0-9.]* s")
      echo "round $round np $np cfg $cfg: $out"
    done
  done
done
