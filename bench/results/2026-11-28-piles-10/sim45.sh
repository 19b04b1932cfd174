#!/bin/bash
# idle simulator pairs, seeds 4 and 5 (neither tuned), with and without nncg.cluster 24 chains; order alternated
cd /work/main
OUT=/tmp/s26/sim45.txt
export FRICON=build-lead/fricon
sh bench/piles.sh $OUT 2000 60 nncg 4 --time-limit 5
sh bench/piles.sh $OUT 2000 60 nncg 4 --time-limit 5 --set nncg.cluster=24 --set nncg.cluster_chains=1
sh bench/piles.sh $OUT 2000 60 nncg 5 --time-limit 5 --set nncg.cluster=24 --set nncg.cluster_chains=1
sh bench/piles.sh $OUT 2000 60 nncg 5 --time-limit 5
echo done >> $OUT
