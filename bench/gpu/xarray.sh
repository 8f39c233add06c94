#!/usr/bin/env bash
# Issue 5's benchmark on the GPU machine: xr.open_dataset(...).load() to the
# GPU with engine="zarrgpu", against xarray's zarr engine with zarr-python's
# GPU mode (zarr from .whl-peers) and the C++ read path, in one run.
# Needs the build of bench/gpu/run.sh (build/, with Python); uses the zstd
# store the read benchmark generated under /tmp/zarrgpu_bench, or makes a
# smaller one on the same grid (XARRAY_BENCH_STEPS time steps of 721 x 1440 x 4,
# default 64 = ~1 GB).
#   bash bench/gpu/xarray.sh [STORE]
source "$(dirname "${BASH_SOURCE[0]}")/stage_env.sh"
source bench/gpu/python_pkg.sh
store=${1:-$(ls -d /tmp/zarrgpu_bench/era5_zstd_*.zarr 2>/dev/null | head -1)}
if [ -z "$store" ] || [ ! -d "$store" ]; then
  store=/tmp/zarrgpu_bench/era5_xarray_${XARRAY_BENCH_STEPS:-64}.zarr
  mkdir -p "$(dirname "$store")"
  build/tools/zarrgpu/zarrgpu generate era5 "$store" --time "${XARRAY_BENCH_STEPS:-64}" --lat 721 --lon 1440 > "$out/xarray_generate.log" 2>&1 ||
    { tail -5 "$out/xarray_generate.log"; exit 1; }
fi
cxx=$(find build -name bench_gpu_read -type f -perm -u+x | head -1)
echo "store: $store"
timeout "${XARRAY_BENCH_TIMEOUT_S:-240}" python3 bench/python_xarray/bench_open_dataset.py "$store" --out "$out" \
  --repeats "${XARRAY_BENCH_REPEATS:-3}" --engines zarrgpu,zarr-gpu ${cxx:+--cxx-bench "$cxx"}
cat "$out/bench_open_dataset.md" 2>/dev/null
