#!/usr/bin/env bash
# The main job: sets up, builds, and runs the `zarrgpu` command.
#   scripts/run.sh                 the built-in sample: generate a small ERA5-like
#                                  dataset, show it, read a time step (on the GPU
#                                  when there is one), convert it to sharded v3, and
#                                  train a small forecasting CNN on it for a few steps
#                                  with zarrgpu.loader (examples/train_era5.py)
#   scripts/run.sh ARGS...         zarrgpu ARGS... (e.g. info /data/era5.zarr)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" >/dev/null
bin="$root/build/tools/zarrgpu/zarrgpu"
if [ $# -gt 0 ]; then exec "$bin" "$@"; fi

sample="$root/build/sample"
mkdir -p "$sample"
set -x
"$bin" generate era5 "$sample/era5.zarr" --time 8 --channels 4 --lat 181 --lon 360 --overwrite
"$bin" info "$sample/era5.zarr"
# One time step, through the GPU path when this build and machine have one
# (exit 5: no CUDA path in this build, 8: no usable GPU), else on the CPU.
"$bin" cat "$sample/era5.zarr" --array data --select 0,:,:,: --out "$sample/data_t0.npy" --device cuda:0 ||
  { rc=$?; [ $rc -eq 5 ] || [ $rc -eq 8 ] || exit $rc;
    "$bin" cat "$sample/era5.zarr" --array data --select 0,:,:,: --out "$sample/data_t0.npy"; }
"$bin" convert "$sample/era5.zarr" "$sample/era5_sharded.zarr" --format 3 --chunks time=1 --shard time=4 --codec zstd:3 --overwrite
"$bin" info "$sample/era5_sharded.zarr"
# The job users come for: a training run fed by zarrgpu.loader (GPU when there is one,
# else CPU), a few steps of examples/train_era5.py; it prints its throughput. The Python
# package is installed into .venv from the same build tree (as scripts/test.sh does).
set +x
"$root/.venv/bin/python" -m pip install -q --no-build-isolation -e . -Cbuild-dir=build \
  -Ccmake.define.ZARRGPU_BUILD_TESTS=ON -Ccmake.define.ZARRGPU_BUILD_TOOLS=ON >/dev/null
set -x
"$root/.venv/bin/python" examples/train_era5.py "$sample/era5.zarr" --steps 6 --warmup 1 --batch-size 2 \
  --width 16 --stats-samples 4
