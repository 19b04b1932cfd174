#!/bin/bash
# Extra TUNING problems (issue 27, branch auto27n): the tuning half's seeds 1 and 3
# simulated with mu = 1.0 (the collection gives mu = 1.0 to seed 4, a validation
# seed only), exported every 10 steps.  usage: gen-mu1.sh FRICON OUTDIR
B=${1:?usage: gen-mu1.sh FRICON OUTDIR}
OUT=${2:?usage: gen-mu1.sh FRICON OUTDIR}
mkdir -p $OUT
echo "file,family,half,seed,step,nc,d,form,tolerance,mu,count" > $OUT/manifest.csv
for spec in "disks-wall 600 60 20" "hopper 600 60 20" "pile 300 80 40"; do
  read -r fam n steps from <<<"$spec"
  for seed in 1 3; do
    tmp=$OUT/.run-$fam-$seed; rm -rf $tmp; mkdir -p $tmp $OUT/$fam/tuning
    /usr/bin/time -f "$fam $seed %e s" nice -n 10 $B simulate $fam --count $n --seed $seed --mu 1.0 --steps $steps --every 10 --export-from $from --both --export $tmp --solver nsgs --tol 1e-4 --max-iter 2000 --quiet > $OUT/.log-$fam-$seed 2>&1
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
