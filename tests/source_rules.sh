#!/bin/bash
# The source tree's own rules (issue 26): comments say what and why, the
# measurements live in docs/ and bench/results/; no source file (src/, include/) is
# more than a third comment lines; include/fricon.h holds no option struct;
# every solver the registry names is found by a file of its name (or its
# family's) under src/solvers/.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
fails=0 checks=0
check() {   # check CONDITION-STATUS MESSAGE
  checks=$((checks + 1))
  if [ "$1" != 0 ]; then fails=$((fails + 1)); echo "FAIL: $2"; fi
}

measured=$(grep -rio 'measured' "$root/src" "$root/include" | wc -l)
[ "$measured" -le 5 ]; check $? "'measured' occurs $measured times in src/ and include/ (at most 5)"

for f in $(find "$root/src" "$root/include" -name '*.[ch]' | sort); do
  frac=$(awk '
    { t = $0; sub(/^[ \t]+/, "", t) }
    inc { c++; if (t ~ /\*\//) inc = 0; next }
    t ~ /^\/\*/ { c++; if (t !~ /\*\//) inc = 1; next }
    t ~ /^\/\// { c++ }
    END { printf "%d %d", c, NR }' "$f")
  set -- $frac
  [ $(( $1 * 3 )) -le "$2" ]; check $? "${f#$root/}: $1 of $2 lines are comments (more than a third)"
done

! grep -q 'typedef struct fc_[a-z_]*options' "$root/include/fricon.h"
check $? "include/fricon.h declares an option struct (they belong in fricon_options.h)"

# every solver name of the registry has a file named after it or after its
# family (the part before the first '-': nsn-ac -> nsn.c, ipm-mdp -> ipm_mdp.c;
# vi-fpp -> fpp.c, gadmm -> admm.c, apgd-ccp -> apgd.c; psor is nsgs with
# over-relaxation, in nsgs.c), under src/solvers/ or, for the distributed
# ones (FRICON_MPI), src/dist/ (dist-nsgs -> src/dist/dist_nsgs.c)
for name in $(sed -n 's/^ *{"\([a-z-]*\)", *".*/\1/p' "$root/src/core/registry.c" | sort -u); do
  base=${name//-/_}; fam=${name%%-*}
  found=0
  for cand in "$base" "$fam" "${name#vi-}" "${name#g}" "${name%-ccp}" "${name/psor/nsgs}"; do
    [ -f "$root/src/solvers/${cand//-/_}.c" ] && found=1
    [ -f "$root/src/dist/${cand//-/_}.c" ] && found=1
  done
  [ $found = 1 ]; check $? "solver '$name' has no file src/{solvers,dist}/{$base,$fam}.c"
done

echo "$((checks - fails)) passed, $fails failed"
[ $fails = 0 ]
