/* Ad-hoc (tenth sweep session): the rows alone, full (bsr_row_dot) against the
 * half triangle gather + scatter and gather only, r fixed; CPU time (WALL=1:
 * wall), medians of 7 rounds of K passes.  Built by hand against the
 * library like bench_sweep_parts (-O3 -fopenmp -I include -I src -I build,
 * its link line), run as: rows PROBLEM K.  Output: rows.txt. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "matrix/bsr.h"
#include "matrix/upper.h"
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t; clock_gettime(getenv("WALL")?CLOCK_MONOTONIC:CLOCK_PROCESS_CPUTIME_ID,&t); return t.tv_sec+1e-9*t.tv_nsec;}
static int cmp(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return (x>y)-(x<y);}
int main(int argc,char**argv){
  fc_problem*p; fc_error err; if(fc_read(argv[1],&p,&err)) return 2;
  int nc=p->nc, m=3*nc, K=atoi(argv[2]);
  const fc_matrix*W=p->W; int why; fc_matrix*H=fc_bsr_upper(W,1e-12,&why);
  double*r=calloc(m,8),*Q=calloc(m,8),*t=calloc(m,8);
  for(int i=0;i<m;i++) r[i]=1.0/(1+i%7);
  double tf[16],th[16],tg[16],tsum[16];
  for(int rep=0;rep<7;rep++){
    double t0=now();
    for(int s=0;s<K;s++) for(int a=0;a<nc;a++){double qa[3]; bsr_row_dot(W,3,a,r,1,qa); for(int k=0;k<3;k++) Q[3*a+k]=qa[k]+p->q[3*a+k];}
    tf[rep]=(now()-t0)/K; t0=now();
    for(int s=0;s<K;s++) for(int a=0;a<nc;a++){double qa[3]; int k0=H->p[a]+1,k1=H->p[a+1];
      for(int k=0;k<3;k++){qa[k]=p->q[3*a+k]+t[3*a+k]; t[3*a+k]=0;}
      for(int k=k0;k<k1;k++){const double*B=H->x+9*(size_t)k,*xb=r+3*(size_t)H->j[k]; for(int c=0;c<3;c++) for(int i=0;i<3;i++) qa[i]+=B[c*3+i]*xb[c];}
      for(int k=0;k<3;k++) Q[3*a+k]=qa[k];
      const double*ra=r+3*(size_t)a;
      for(int k=k0;k<k1;k++){const double*B=H->x+9*(size_t)k; double*tb=t+3*(size_t)H->j[k]; for(int c=0;c<3;c++){double s2=0; for(int i=0;i<3;i++) s2+=B[c*3+i]*ra[i]; tb[c]+=s2;}}}
    th[rep]=(now()-t0)/K; t0=now();
    for(int s=0;s<K;s++) for(int a=0;a<nc;a++){double qa[3]; int k0=H->p[a]+1,k1=H->p[a+1];
      for(int k=0;k<3;k++){qa[k]=p->q[3*a+k];}
      for(int k=k0;k<k1;k++){const double*B=H->x+9*(size_t)k,*xb=r+3*(size_t)H->j[k]; for(int c=0;c<3;c++) for(int i=0;i<3;i++) qa[i]+=B[c*3+i]*xb[c];}
      for(int k=0;k<3;k++) Q[3*a+k]=qa[k];}
    tg[rep]=(now()-t0)/K; t0=now();
    double acc=0; for(int s=0;s<K;s++){ for(long i=0;i<W->nnz;i++) acc+=W->x[i]; } if(acc==1.2345) puts("x");
    tsum[rep]=(now()-t0)/K;
  }
  qsort(tf,7,8,cmp);qsort(th,7,8,cmp);qsort(tg,7,8,cmp);qsort(tsum,7,8,cmp);
  printf("full rows %.3f ms, half gather+scatter %.3f ms, half gather only %.3f ms, sum of W's values %.3f ms (%.1f GB/s); blocks %ld half %d\n",1e3*tf[3],1e3*th[3],1e3*tg[3],1e3*tsum[3], W->nnz*8/tsum[3]/1e9, W->nnz/9, H->p[nc]);
  return 0;}
