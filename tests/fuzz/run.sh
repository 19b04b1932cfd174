#!/bin/sh
# Build the libFuzzer targets (clang, with ASan + UBSan) and run each for
# SECONDS (default 60), seeded from ../shared/data and examples/.
# FUZZ_TARGETS picks targets (default all).
# usage: tests/fuzz/run.sh [SECONDS]
set -e
cd "$(dirname "$0")/../.."
secs=${1:-60}
command -v clang >/dev/null 2>&1 && [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || {
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y -qq clang libclang-rt-14-dev >/dev/null
}
sh scripts/install-deps.sh
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFRICON_FUZZ=ON \
  -DFRICON_TESTS=OFF -DFRICON_WERROR=OFF >/dev/null
targets=${FUZZ_TARGETS:-fuzz_dat fuzz_dat_global fuzz_dat_rolling fuzz_hdf5 fuzz_cli fuzz_validate fuzz_fclib}
cmake --build build-fuzz -j2 --target $targets >/dev/null
out="$(pwd)/build-fuzz/fuzz-out"   # absolute: fuzz_cli changes directory
mkdir -p "$out"
for t in $targets; do
  corpus="$out/corpus-$t"
  mkdir -p "$corpus"
  case $t in
    fuzz_dat) for f in ../shared/data/*/*.dat examples/*.dat; do
                [ -f "$f" ] && [ "$(wc -c <"$f")" -le 65536 ] && cp "$f" "$corpus/" ; done ;;
    fuzz_dat_global) for f in ../shared/data/global/*.dat examples/*global*.dat; do
                [ -f "$f" ] && [ "$(wc -c <"$f")" -le 100000 ] && cp "$f" "$corpus/" ; done ;;
    fuzz_dat_rolling) for f in ../shared/data/rolling/*.dat examples/*rolling*.dat; do
                [ -f "$f" ] && [ "$(wc -c <"$f")" -le 100000 ] && cp "$f" "$corpus/" ; done ;;
    fuzz_cli) printf 'info\nnothing.dat' >"$corpus/a"; printf 'solve\nx.dat\n--tol\n1e-3' >"$corpus/b"
              printf 'solvers' >"$corpus/c"; printf 'convert\na.dat\nb.hdf5' >"$corpus/d"
              printf 'solve\nx.dat\n--set\nnsgs.omega=1.2\n--json' >"$corpus/e" ;;
    fuzz_validate|fuzz_fclib|fuzz_hdf5) head -c 64 /dev/zero >"$corpus/zero" ;;
  esac
  echo "== $t: ${secs}s"
  ASAN_OPTIONS=detect_leaks=1 "$(pwd)/build-fuzz/tests/fuzz/$t" "$corpus" -max_total_time="$secs" \
    -max_len=${FUZZ_MAX_LEN:-100000} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/$t-" 2>"$out/$t.log" || { tail -40 "$out/$t.log"; exit 1; }
  grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb' "$out/$t.log"
  echo "corpus: $(ls "$corpus" | wc -l) files"
done
