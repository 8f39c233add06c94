#!/usr/bin/env bash
# Issue 4 on the GPU machine, one call: build (CUDA, Release, Ninja), the GPU
# tests, compute-sanitizer memcheck + leak check on the device-read test, then
# the read benchmark. Everything lands in $OUT (or bench/results).
#
#   bench/gpu/read.sh [--gb 8] [--budget 420] [--skip-build] [--skip-tests] [--skip-sanitizer] [--peers tensorstore,zarr-gpu,zarr-gds]
#
# Budget: --budget seconds (default 420) from the start of this script for
# the sanitizer runs and the benchmark (build and tests come on top when not
# skipped). Sanitizers ~1-2 min; the benchmark gets what is left: three 8 GB
# ERA5-like stores (zstd, sharded, raw; ~30-60 s each to generate, kept under
# /tmp on a warm machine), every variant and peer once, then pairs capped in
# time, then cold runs; a short budget cuts repeats, never a variant.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
out=${OUT:-$root/bench/results}
mkdir -p "$out"
gb=8; build=1; tests=1; sanitizer=1; peers="tensorstore,zarr-gpu,zarr-gds"; budget=420
while [ $# -gt 0 ]; do
  case $1 in
    --gb) gb=$2; shift ;;
    --skip-build) build=0 ;;
    --skip-tests) tests=0 ;;
    --skip-sanitizer) sanitizer=0 ;;
    --peers) peers=$2; shift ;;
    --budget) budget=$2; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
  shift
done
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 ))s; }
[ -f bench/gpu/prepare.sh ] && source bench/gpu/prepare.sh
corpus="$root/.corpus"; [ -d "$corpus" ] || corpus="$root/tests/corpus/data"
export ZARRGPU_CORPUS_DIR="$corpus"

if [ $build = 1 ]; then
  echo "== build ($(elapsed))"
  if [ ! -f build/build.ninja ]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DZARRGPU_CUDA=ON -DZARRGPU_CORPUS_DIR="$corpus" \
      > "$out/read_configure.log" 2>&1 || { tail -40 "$out/read_configure.log"; exit 1; }
  fi
  cmake --build build -j "$(nproc)" --target gpu_test engine_device_read_test bench_gpu_read zarrgpu_cli \
    > "$out/read_build.log" 2>&1 || cmake --build build -j "$(nproc)" >> "$out/read_build.log" 2>&1 || {
      grep -E "error|Error" "$out/read_build.log" | head -40; exit 1; }
  echo "built ($(elapsed))"
fi
gpu_test=$(find build -name gpu_test -type f -perm -u+x | head -1)
dr_test=$(find build -name engine_device_read_test -type f -perm -u+x | head -1)

if [ $tests = 1 ]; then
  echo "== GPU tests ($(elapsed))"
  for t in "$gpu_test" "$dr_test"; do
    [ -n "$t" ] || { echo "missing test binary"; continue; }
    timeout 240 "$t" --gtest_brief=1 > "$out/$(basename "$t").log" 2>&1
    echo "$(basename "$t") exit $?"; grep -E "PASSED|FAILED|SKIPPED|Failure" "$out/$(basename "$t").log" | head -20
  done
fi

if [ $sanitizer = 1 ] && command -v compute-sanitizer > /dev/null; then
  echo "== compute-sanitizer ($(elapsed))"
  # Tiny staging makes many batches through every slot; leak check covers our buffers.
  ZARRGPU_STAGING_BYTES=64K ZARRGPU_SCRATCH_BYTES=256K timeout 180 compute-sanitizer --tool memcheck --leak-check full \
    --error-exitcode 99 "$dr_test" --gtest_filter='DeviceRead.CorpusMatchesExpectedDigests:DeviceRead.CorruptChunkIsAnError' \
    > "$out/read_memcheck.log" 2>&1
  echo "memcheck exit $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" "$out/read_memcheck.log" | head
  # The out-of-memory test provokes API errors on purpose; without it "0 errors" means something.
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 "$gpu_test" --gtest_filter='Kernels.*:-Kernels.OutOfMemory*' \
    > "$out/kernels_memcheck.log" 2>&1
  echo "kernels memcheck exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/kernels_memcheck.log" | head
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 99 "$gpu_test" --gtest_filter='Kernels.Delta*:Kernels.Place*' \
    > "$out/kernels_racecheck.log" 2>&1
  echo "kernels racecheck exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/kernels_racecheck.log" | head
fi

echo "== benchmark ($(elapsed))"
left=$(( budget - $(date +%s) + t0 ))
# Logs as *.log (run.sh packs them into logs.tgz); results: gpu_read.{json,md,png} only.
python3 bench/gpu_read/run_gpu_read.py --bin build --gb "$gb" --data /tmp/zarrgpu_bench --out "$out" \
  --peers "$peers" --budget $(( left > 150 ? left - 20 : 130 )) 2>&1 | tee "$out/gpu_read.log" | tail -40
echo "== done ($(elapsed))"
