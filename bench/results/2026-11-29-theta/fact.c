#include <cholmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  FILE*f=fopen("A.bin","rb"); long hd[2]; fread(hd,8,2,f); int n=hd[0],nz=hd[1];
  cholmod_common c; cholmod_start(&c); c.supernodal = argc>1 ? atoi(argv[1]) : CHOLMOD_SUPERNODAL;
  cholmod_sparse*A=cholmod_allocate_sparse(n,n,nz,1,1,1,CHOLMOD_REAL,&c);
  fread(A->p,4,n+1,f); fread(A->i,4,nz,f); fread(A->x,8,nz,f);
  double t0=now(); cholmod_factor*L=cholmod_analyze(A,&c); double t1=now();
  for(int k=0;k<3;k++){double a=now(); cholmod_factorize(A,L,&c); printf("factorize %.4f s\n",now()-a);}
  printf("analyze %.4f s, nnz(L) %.0f, flops %.3g, ordering %d, super %d\n",t1-t0,c.lnz,c.fl,c.selected,L->is_super);
  return 0;}
