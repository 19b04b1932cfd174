#!/bin/bash
# build-lead's fricon with nncg.cluster 24 + chains on every bench
if [ "$1" = bench ]; then shift; exec /work/main/build-lead/fricon bench --set nncg.cluster=24 --set nncg.cluster_chains=1 --set nncg.cluster_budget=0.35 "$@"; fi
exec /work/main/build-lead/fricon "$@"
