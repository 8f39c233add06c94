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
device=cpu
"$bin" devices >/dev/null 2>&1 && "$bin" devices | grep -q '^cuda:0' && device=cuda:0
set -x
"$bin" generate era5 "$sample/era5.zarr" --time 8 --channels 4 --lat 181 --lon 360 --overwrite
"$bin" info "$sample/era5.zarr"
"$bin" cat "$sample/era5.zarr" --array t2m --select 0,:,:,: --out "$sample/t2m_t0.npy" --device "$device"
"$bin" convert "$sample/era5.zarr" "$sample/era5_sharded.zarr" --format 3 --chunks time=1 --shard time=4 --codec zstd:3 --overwrite
"$bin" info "$sample/era5_sharded.zarr"
