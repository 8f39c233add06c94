#!/usr/bin/env bash
# Issue 37's benchmark on the GPU machine: the ERA5-like Zstd store through zarr-python into
# GPU buffers (enable_gpu as it is, + KvikIO GDSStore, + nvCOMP's Python Zstd codec, +
# zarrgpu.zarr.CodecPipeline) and through zarrgpu's own API, then the GPU tests of
# zarrgpu.zarr. Needs the build of bench/gpu/run.sh (build/, with Python) and the wheels of
# bench/gpu/fetch_deps.sh (.whl-peers: zarr-python, KvikIO, nvidia-nvcomp-cu13).
# Uses the 8 GB store the read benchmark generated under /tmp/zarrgpu_bench, or makes it.
#   bash bench/gpu/zarr_python.sh [STORE]          results: $OUT or bench/results/zarr_python.{md,json}
source "$(dirname "${BASH_SOURCE[0]}")/stage_env.sh"
source bench/gpu/python_pkg.sh
store=${1:-$(ls -d /tmp/zarrgpu_bench/era5_zstd_*.zarr 2>/dev/null | head -1)}
if [ -z "$store" ] || [ ! -d "$store" ]; then
  # bench/gpu_read's zstd variant at 8 GB: float32 721 x 1440 x 4 channels per step.
  steps=${ZARR_PYTHON_BENCH_STEPS:-481}
  store=/tmp/zarrgpu_bench/era5_zstd_${steps}.zarr
  mkdir -p "$(dirname "$store")"
  build/tools/zarrgpu/zarrgpu generate era5 "$store" --time "$steps" --channels 4 --lat 721 --lon 1440 \
    --variant zstd --quiet > "$out/zarr_python_generate.log" 2>&1 || { tail -5 "$out/zarr_python_generate.log"; exit 1; }
fi
echo "store: $store"
echo "== GPU tests of zarrgpu.zarr"
timeout 300 python3 -m pytest -q tests/python/test_gpu_zarr_pipeline.py tests/python/test_zarr_pipeline.py tests/python/test_zarr_by_path.py \
  -p no:cacheprovider 2>&1 | tail -15
echo "== benchmark"
timeout "${ZARR_PYTHON_BENCH_TIMEOUT_S:-480}" python3 bench/zarr_python/bench_zarr_python.py "$store" --out "$out" \
  --repeats "${ZARR_PYTHON_BENCH_REPEATS:-3}"
