# det9's version of detect-5's phase_timers.py (per-thread CPU per phase of
# the step's detection): the same patch, with det9's text where its tree
# differs (the sizes in phase 0 when no radius changed; take_chunks without
# K; the back chunks from K - nback).  usage: python3 phase_timers.py ROOT
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, '../2026-11-27-detect-5/phase_timers.py')).read()
old_sizes = src[src.index("s = sub(s, '''#pragma omp barrier\n#pragma omp single\n    typical_size"):
                src.index("s = sub(s, '''#pragma omp barrier\n#pragma omp single\n    {")]
new_sizes = """s = sub(s, '''    if (g->same) sizes_of(w, g, lo, hi, part);
#pragma omp barrier''', '''    if (g->same) sizes_of(w, g, lo, hi, part);
#pragma omp barrier
    TPH(0);''')
s = sub(s, '''        sizes_of(w, g, lo, hi, part);
#pragma omp barrier
    }
#pragma omp single
    classify(w, g, nt);''', '''        sizes_of(w, g, lo, hi, part);
#pragma omp barrier
    }
    TPH(2);
#pragma omp single
    classify(w, g, nt);
    TPH(3);''')
"""
src = src.replace(old_sizes, new_sizes)
for a, b in [("take_chunks(w, &job, &front, K);", "take_chunks(w, &job, &front);"),
             ("copy_back(w, &front, job.next, K,", "copy_back(w, &front, K - job.nback, K,")]:
    assert a in src, a
    src = src.replace(a, b)
exec(compile(src, 'phase_timers.py', 'exec'))
