#!/bin/bash
# extra TUNING problems for issue 27: column, seeds 1 and 3 (the tuning half's seeds), mu 1.0, every 5 steps from 10
B=/tmp/s20/fricon-main
OUT=/tmp/coll27c
echo "file,family,half,seed,step,nc,d,form,tolerance,mu,count" > $OUT/manifest.csv
for spec in "column 800 40 10" "column 300 40 10"; do
  read -r fam n steps from <<<"$spec"
  for seed in 1 3; do
    tmp=$OUT/.run-$fam-$n-$seed; rm -rf $tmp; mkdir -p $tmp $OUT/$fam/tuning
    /usr/bin/time -f "$fam $n $seed %e s" nice -n 10 $B simulate $fam --count $n --seed $seed --mu 1.0 --steps $steps --every 5 --export-from $from --both --export $tmp --solver nsgs --tol 1e-4 --max-iter 2000 --quiet > $OUT/.log-$fam-$seed 2>&1
    for f in $tmp/*.hdf5; do
      b=$(basename $f .hdf5)
      step=$(echo "$b" | sed -n 's/.*-0*\([0-9][0-9]*\)\(-local\)\{0,1\}$/\1/p')
      form=global; case $b in *-local) form=local ;; esac
      name=$fam-n$n-s$seed-mu1-$(printf %06d $step)$([ $form = local ] && echo -local).hdf5
      mv $f $OUT/$fam/tuning/$name
      info=$($B info $OUT/$fam/tuning/$name)
      nc=$(echo "$info" | sed -n 's/^nc: //p') d=$(echo "$info" | sed -n 's/^d: //p')
      echo "$fam/tuning/$name,$fam,tuning,$seed,$step,$nc,$d,$form,1e-4,1.0,$n" >> $OUT/manifest.csv
    done
    rm -rf $tmp
  done
done
