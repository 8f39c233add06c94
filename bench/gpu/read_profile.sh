#!/usr/bin/env bash
# Where a device read of zstd chunks spends its GPU time, per kernel (ncu),
# on a small ERA5-like store (PROFILE_STEPS time steps of 721 x 1440 x 4
# float32, zstd-3, one step per chunk), after bench/gpu/run.sh built build/:
#   1. bench_gpu_read full reads with the read path's own decoder choice, then
#      with the GPU decoder forced (ZARRGPU_GPU_ZSTD=1);
#   2. ncu durations of every kernel of one full read, summed by name;
#   3. for each kernel named in PROFILE_STATE_KERNELS (e.g. "cross_kernel
#      entropy_kernel"), ncu's occupancy, warp state and memory sections
#      of its first launch; with PROFILE_SASS=1 also its SASS instructions
#      that most warps were sampled stalled on, and why
#      (bench/gpu/ncu_sass_hotspots.py).
# Builds what it runs when build/ lacks it (bench/gpu/build.sh).
# The read's batches follow the environment (e.g. ZARRGPU_STAGING_BYTES).
# Writes $OUT/read_profile.txt (or bench/results/).
source "$(dirname "${BASH_SOURCE[0]}")/ncu_common.sh"
bench=$(find build -name bench_gpu_read -type f -perm -u+x 2>/dev/null | head -1)
[ -n "$bench" ] || { bash bench/gpu/build.sh "$out" profile bench_gpu_read zarrgpu_cli || exit 1; }
bench=$(find build -name bench_gpu_read -type f -perm -u+x | head -1)
cli=$(find build -path '*tools/zarrgpu/zarrgpu' -type f -perm -u+x | head -1)
steps=${PROFILE_STEPS:-16}
store=/tmp/zarrgpu_profile/era5_zstd_$steps.zarr
mkdir -p "$(dirname "$store")"
[ -d "$store" ] || "$cli" generate era5 "$store" --time "$steps" --lat 721 --lon 1440 --quiet
report=$out/read_profile.txt
{
  echo "# device read of $store ($(date -u +%F))"
  echo "## decoder chosen by the read path (ZARRGPU_GPU_ZSTD=auto)"
  timeout 60 "$bench" "$store" --mode full --repeat 3 2>&1 | tail -1
  # A small store's batches go to CPU threads under the automatic rule: force the GPU decoder.
  export ZARRGPU_GPU_ZSTD=1
  echo "## ZARRGPU_GPU_ZSTD=1"
  timeout 60 "$bench" "$store" --mode full --repeat 3 2>&1 | tail -1
  echo "## ncu, GPU decoder, automatic strategy, one full read: kernel, launches, summed duration"
  timeout ${PROFILE_TIMEOUT_S:-120} "$ncu_bin" --csv --clock-control none --metrics gpu__time_duration.sum \
    "$bench" "$store" --mode full --repeat 1 > "$out/read_profile_ncu.csv" 2>/dev/null
  python3 bench/gpu/ncu_kernel_times.py "$out/read_profile_ncu.csv"
  for k in ${PROFILE_STATE_KERNELS:-}; do
    echo "## ncu warp state of the first $k of one full read"
    timeout ${PROFILE_TIMEOUT_S:-120} "$ncu_bin" --clock-control none -k "regex:$k" -c 1 \
      --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis \
      --section SchedulerStats "$bench" "$store" --mode full --repeat 1 2>&1 | grep -vE "^==PROF==|^\{"
    if [ "${PROFILE_SASS:-0}" = 1 ]; then
      echo "## ncu stall samples by SASS instruction, first $k of one full read"
      timeout ${PROFILE_TIMEOUT_S:-120} "$ncu_bin" --clock-control none -k "regex:$k" -c 1 \
        --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
        "$bench" "$store" --mode full --repeat 1 > "$out/sass_$k.csv" 2>/dev/null
      python3 bench/gpu/ncu_sass_hotspots.py "$out/sass_$k.csv"
    fi
  done
} > "$report" 2>&1
cat "$report"
