# Sourced by the bench scripts that run programs other than fricon (bench_kernels,
# bench_detect): fricon's wait between OpenMP regions (app/main.c) unless
# OMP_WAIT_POLICY or GOMP_SPINCOUNT is set: GOMP_SPINCOUNT=3000 when the load
# average is below the cores, else OMP_WAIT_POLICY=passive.
fricon_wait_rule() {
  if [ -z "${OMP_WAIT_POLICY:-}" ] && [ -z "${GOMP_SPINCOUNT:-}" ]; then
    if awk -v c="$(nproc)" '{ exit !($1 < c) }' /proc/loadavg; then export GOMP_SPINCOUNT=3000
    else export OMP_WAIT_POLICY=passive; fi
  fi
}
