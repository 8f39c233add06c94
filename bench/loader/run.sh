#!/usr/bin/env bash
# Issue 32's loader benchmark, one command on the GPU machine:
#   bash bench/loader/run.sh            (LOADER_BENCH_GB=8: store size in GB, default 8)
# Builds the CLI and the Python extension with CUDA (bench/gpu/build.sh), generates the
# ERA5-like zstd store of bench/gpu_read (float32 [time, 4, 721, 1440], one step per chunk),
# its sharded variant and the hackathon's layout (one level per chunk) under
# /tmp/zarrgpu_bench (kept for the next run), runs the GPU loader tests, then every row of
# bench/loader/bench_loader.py. Results: $OUT (default bench/results)/loader.{md,json,png},
# the logs in loader_logs.tgz (rows are written as they finish: a cut-short run keeps them).
#   LOADER_BENCH_TESTS=0       skip the tests     LOADER_BENCH_RUN=0     skip the benchmark
#   LOADER_BENCH_LAYOUTS="zstd sharded level"     the stores (zstd is always made)
#   LOADER_BENCH_TIMEOUT=540   seconds for the benchmark rows (the device tool stops a call at 600)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/bench/results}
cd "$root" && mkdir -p "$out" && export PYTHONUNBUFFERED=1
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 ))s; }
source bench/gpu/prepare.sh
echo "== build ($(elapsed))"
bash bench/gpu/build.sh "$out" loader zarrgpu_cli _zarrgpu || exit 1
source bench/gpu/python_pkg.sh
bin=$root/build/tools/zarrgpu/zarrgpu
gb=${LOADER_BENCH_GB:-8}
# One step of 4 channels of 721 x 1440 float32 is 16.6 MB.
steps=$(python3 -c "print(max(64, round($gb * 1e9 / (4 * 721 * 1440 * 4))))")
data=/tmp/zarrgpu_bench
mkdir -p "$data"
zstd=$data/loader_zstd_$steps.zarr
sharded=$data/loader_sharded_$steps.zarr
hack=$data/loader_level_$steps.zarr
echo "== data: $steps steps ($(elapsed))"
[ -d "$zstd" ] || "$bin" generate era5 "$zstd" --time "$steps" --channels 4 --lat 721 --lon 1440 --quiet \
  > "$out/loader_generate.log" 2>&1 || { tail -5 "$out/loader_generate.log"; exit 1; }
layouts=${LOADER_BENCH_LAYOUTS:-zstd sharded level}
case " $layouts " in *" sharded "*) ;; *) sharded= ;; esac
case " $layouts " in *" level "*) ;; *) hack= ;; esac
[ -z "$sharded" ] || [ -d "$sharded" ] || "$bin" generate era5 "$sharded" --time "$steps" --channels 4 --lat 721 --lon 1440 \
  --variant sharded --shard-time 8 --quiet >> "$out/loader_generate.log" 2>&1 || echo "sharded store failed"
[ -z "$hack" ] || [ -d "$hack" ] || "$bin" convert "$zstd" "$hack" --format 3 --chunks time=1,channel=1 --codec zstd:3 \
  >> "$out/loader_generate.log" 2>&1 || echo "one-level-per-chunk store failed"
du -sh "$zstd" ${sharded:+"$sharded"} ${hack:+"$hack"} 2>/dev/null
if [ "${LOADER_BENCH_TESTS:-1}" != 0 ]; then
  echo "== GPU loader tests ($(elapsed))"
  ZARRGPU_BIN=$bin timeout 400 python3 -m pytest -q -p no:cacheprovider tests/python/test_gpu_loader.py \
    tests/python/test_loader.py tests/python/test_orthogonal.py > "$out/loader_pytest.log" 2>&1
  echo "pytest exit $?"; grep -E "passed|failed|FAILED|Error|skipped" "$out/loader_pytest.log" | tail -15
fi
if [ "${LOADER_BENCH_RUN:-1}" != 0 ]; then
  echo "== benchmark ($(elapsed))"
  extra=()
  [ -n "$sharded" ] && [ -d "$sharded" ] && extra+=(--sharded "$sharded")
  [ -n "$hack" ] && [ -d "$hack" ] && extra+=(--hackathon "$hack")
  timeout "${LOADER_BENCH_TIMEOUT:-540}" python3 bench/loader/bench_loader.py --store "$zstd" "${extra[@]}" --out "$out"
  echo "bench exit $?"; [ -f "$out/loader.md" ] && cat "$out/loader.md"
fi
(cd "$out" && ls loader*.log >/dev/null 2>&1 && tar czf loader_logs.tgz loader*.log && rm -f loader*.log)
echo "== done ($(elapsed))"
