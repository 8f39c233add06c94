#!/usr/bin/env bash
# One entry point for the GPU machine: builds with CUDA, runs the tests (GPU ones
# included), then the benchmarks named on the command line.
#   bench/gpu/run.sh [test] [zstd] [read] [cpu] [python]    (default: test)
# Logs and results go to $OUT (the device tool's folder) or bench/results.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
export PYTHONUNBUFFERED=1
out=${OUT:-$root/bench/results}
mkdir -p "$out"
source bench/gpu/prepare.sh
stages=("$@"); [ ${#stages[@]} -gt 0 ] || stages=(test)
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 ))s; }

echo "== build ($(elapsed))"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DZARRGPU_CUDA=ON \
    -DZARRGPU_CORPUS_DIR="$root/.corpus" > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
fi
cmake --build build -j "$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; tail -20 "$out/build.log"; exit 1; }
echo "built ($(elapsed))"

for s in "${stages[@]}"; do
  case $s in
    test)
      echo "== tests ($(elapsed))"
      ctest --test-dir build -j 8 --timeout 300 --output-on-failure > "$out/ctest.log" 2>&1
      echo "ctest exit $?"; grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/ctest.log" | head -40 ;;
    zstd)   echo "== zstd ($(elapsed))"; bash bench/gpu/zstd.sh ;;
    read)   echo "== gpu read ($(elapsed))"; bash bench/gpu/read.sh ;;
    cpu)    echo "== cpu read ($(elapsed))"; python3 bench/cpu_read/run_cpu_read.py --bin build --out "$out" ${ZARRGPU_BENCH_GB:+--gb $ZARRGPU_BENCH_GB} ;;
    *)      echo "unknown stage $s" ;;
  esac
done
echo "== done ($(elapsed))"
