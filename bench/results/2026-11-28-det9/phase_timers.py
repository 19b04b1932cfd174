# det9's version (the sizes in phase 0 when no radius changed; take_chunks
# without K).  Per-thread CPU seconds of each phase of the detection between barriers,
# in bench_detect's side-by-side steps (detect-4's patch, moved to the
# step's detection): patches a copy of the tree (ROOT), to be built and
# run with TPH=1 OMP_WAIT_POLICY=passive (a waiting thread burns no CPU).
# Lines "t1 k:a/b ..." per step and thread count: phase k's CPU (ms) of
# threads 0 and 1.  For the tree after the even copy (its single and
# copy_back); phases-ref/new.txt were patched by its first version (git
# log), the same phases.  usage: python3 phase_timers.py ROOT
import sys
root = sys.argv[1]
hdr = '#include <omp.h>\n#include <time.h>\nextern double fc_tph[2][16]; extern double fc_tlast[2];\nstatic inline double fc_tcpu(void) { struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); return ts.tv_sec + 1e-9 * ts.tv_nsec; }\n#define TPH(k) do { int _me = omp_get_thread_num(); if (_me < 2) { double _t = fc_tcpu(); fc_tph[_me][k] += _t - fc_tlast[_me]; fc_tlast[_me] = _t; } } while (0)\n'
def sub(s, a, b):
    assert a in s, a
    return s.replace(a, b)
p = root + '/src/mbd/broadphase.c'
s = open(p).read()
s = sub(s, '#include "mbd/mbd.h"\n', '#include "mbd/mbd.h"\n' + hdr)
s = sub(s, '''    if (g->same) sizes_of(w, g, lo, hi, part);
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
s = sub(s, '''#pragma omp barrier
#pragma omp single
    {
        bucket_starts(g, nt);''', '''#pragma omp barrier
    TPH(4);
#pragma omp single
    {
        bucket_starts(g, nt);''')
s = sub(s, '''    place(w, g, lo, hi, cnt);
#pragma omp barrier''', '''    TPH(5);
    place(w, g, lo, hi, cnt);
#pragma omp barrier
    TPH(6);''')
open(p, 'w').write(s)
p = root + '/src/mbd/detect.c'
s = open(p).read()
s = sub(s, '#include <limits.h>\n', '#include <limits.h>\n' + hdr.replace('extern double fc_tph[2][16]; extern double fc_tlast[2];', 'double fc_tph[2][16], fc_tlast[2];'))
s = sub(s, '''    if (fc_mbd_grid_prepare(w, &job.g, nt)''', '''    fc_tlast[0] = fc_tcpu();
    if (fc_mbd_grid_prepare(w, &job.g, nt)''')
s = sub(s, '''        bad = take_chunks(w, &job, &front);''', '''        TPH(12);
        bad = take_chunks(w, &job, &front);
        TPH(7);''')
s = sub(s, '''#pragma omp parallel num_threads(nt)
        {
            fc_mbd_grid_build(w, &job.g);
            int mine = take_chunks(w, &job, &front);''', '''        TPH(12);
#pragma omp parallel num_threads(nt)
        {
            if (omp_get_thread_num() == 1) fc_tlast[1] = fc_tcpu();
            TPH(13);
            fc_mbd_grid_build(w, &job.g);
            int mine = take_chunks(w, &job, &front);
            TPH(7);''')
s = sub(s, '''#pragma omp single
            if (!bad) bad = grow_front(&front, tp, tc) != 0;''', '''#pragma omp single
            if (!bad) bad = grow_front(&front, tp, tc) != 0;
            TPH(8);''')
s = sub(s, '''            if (!bad) copy_back(w, &front, K - job.nback, K, tp, tc, omp_get_thread_num(), nt);''', '''            if (!bad) copy_back(w, &front, K - job.nback, K, tp, tc, omp_get_thread_num(), nt);
            TPH(9);''')
open(p, 'w').write(s)
p = root + '/bench/detect.c'
s = open(p).read()
s = sub(s, '''            int before = fc_threads_set(t);
            long f0 = minflt();''', '''            extern double fc_tph[2][16];
            double ph[2][16];
            memcpy(ph, fc_tph, sizeof ph);
            int before = fc_threads_set(t);
            long f0 = minflt();''')
s = sub(s, '''            flt[t][k] = (double)(minflt() - f0);
''', '''            flt[t][k] = (double)(minflt() - f0);
            if (getenv("TPH")) { printf("t%d", t); for (int z = 0; z < 14; z++) printf(" %d:%.3f/%.3f", z, 1e3 * (fc_tph[0][z] - ph[0][z]), 1e3 * (fc_tph[1][z] - ph[1][z])); printf("\\n"); }
''')
open(p, 'w').write(s)
