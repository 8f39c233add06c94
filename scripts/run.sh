#!/usr/bin/env bash
# The main job: sets up, builds, and runs the `zarrgpu` command.
#   scripts/run.sh                 the built-in sample: generate a small ERA5-like
#                                  dataset, show it, read a time step (on the GPU
#                                  when there is one), and convert it to sharded v3
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
