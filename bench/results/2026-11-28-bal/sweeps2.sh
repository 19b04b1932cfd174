cd /work/wt-bal
F=build/fricon
run() { "$F" solve "$1" --solver nsgs --tol "$2" --max-iter "$3" --threads "$4" --set nsgs.cut="$5" --json 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("status"), d.get("iterations"), d.get("residual"), d.get("seconds"))'; }
for tol in 1e-3 5e-4; do
  f=/tmp/s23/pile4000/pile-000040-local.hdf5
  echo "# $(date -u +%H:%M) load $(cut -d' ' -f1-3 /proc/loadavg) $f tol $tol"
  echo "threads 1: $(run $f $tol 6000 1 1)"
  echo "threads 2 cut 1: $(run $f $tol 6000 2 1)"
  echo "threads 2 cut 2: $(run $f $tol 6000 2 2)"
done
