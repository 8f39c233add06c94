#!/usr/bin/env bash
# Where the GPU Zstd decoder's time goes, with Nsight Compute (ncu) on the
# GPU machine, after bench/gpu/zstd.sh built the bench (build-zstd-gpu):
#   1. per-kernel durations of the block-parallel path (PROFILE_LEVEL,
#      PROFILE_CHUNK_KIB: a comma-separated list, PROFILE_GIB of data):
#      which phase bounds it, and the warp state of one kernel
#      (PROFILE_STATE_KERNEL, default entropy_kernel, at the first size;
#      with PROFILE_SASS=1 also its SASS instructions warps stalled on most);
#   2. the one-warp kernel on 64 KiB chunks at each of PROFILE_ONE_WARP_LEVELS
#      (default 1): occupancy, warp stall reasons; with PROFILE_SASS=1 also
#      the SASS instructions warps stalled on most (PROFILE_ONE_WARP=0 skips it).
# PROFILE_FORCE_BP=1 runs step 1 with every chunk block parallel (one-block
# chunks too), as ZARRGPU_ZSTD_BLOCK_PARALLEL=1 does.
# The rows' compressed chunks are kept in ZSTD_BENCH_CACHE (as zstd.sh keeps them).
# Writes $OUT/zstd_profile.txt (or bench/results/). Clocks are left alone
# (--clock-control none), as the device notes ask.
source "$(dirname "${BASH_SOURCE[0]}")/../gpu/ncu_common.sh"
bench=$(zstd_bench_path) || exit 1
require_ncu
level=${PROFILE_LEVEL:-3}
# Every block-parallel kernel, read from their source (each takes
# BlockParallelParams first; the one-warp kernel does not): a list by hand
# had missed block summary and offset resolution in parts, and classify_kernel.
bp_kernels=$(grep -ohE '\b[a-z_]+_kernel\(BlockParallelParams' src/codec/bytes_to_bytes/zstd/gpu/kernel_block_parallel.cuh |
             sed 's/(.*//' | sort -u | paste -sd'|')
sizes=${PROFILE_CHUNK_KIB:-4096}
gib=${PROFILE_GIB:-0.25}
state_kernel=${PROFILE_STATE_KERNEL:-entropy_kernel}
report=$out/zstd_profile.txt
# The bench on one block-parallel row ($1 KiB chunks) into `run`.
bp_row() {
  run=("$bench" --gib "$gib" --gib-l19 "$gib" --runs 1 --levels "$level" --chunk-kib "$1" --no-cpu --no-nvcomp
       --out /tmp/zstd_profile_bench --cache "${ZSTD_BENCH_CACHE:-/tmp/zstd_bench_cache}")
}
# ncu's warp state of the first launch of kernel regex $1 in command "${@:3}"
# ($2: an extra section), and with PROFILE_SASS=1 its SASS hot spots, the
# report's CSV kept as $out/zstd_sass_<tag>.csv (tag: $SASS_TAG).
kernel_state() {
  local k=$1 extra=$2; shift 2
  timeout ${PROFILE_TIMEOUT_S:-120} "$ncu_bin" --clock-control none -k "regex:$k" -c 1 \
    --section Occupancy --section WarpStateStats --section LaunchStats --section "$extra" \
    "$@" 2>&1 | grep -vE "^==PROF==|^level|^device|^generated|^results"
  [ "${PROFILE_SASS:-0}" = 1 ] || return 0
  echo "## stall samples by SASS instruction ($SASS_TAG)"
  timeout ${PROFILE_TIMEOUT_S:-120} "$ncu_bin" --clock-control none -k "regex:$k" -c 1 \
    --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
    "$@" > "$out/zstd_sass_$SASS_TAG.csv" 2>/dev/null
  python3 bench/gpu/ncu_sass_hotspots.py "$out/zstd_sass_$SASS_TAG.csv" 40
}
{
  # Step 1's every run forced block parallel when asked; step 2's never.
  export ZARRGPU_ZSTD_BLOCK_PARALLEL=${PROFILE_FORCE_BP:-}
  for kib in ${sizes//,/ }; do
    echo "# block-parallel kernels, level $level, $kib KiB chunks, $gib GiB ($(date -u +%F))"
    bp_row "$kib"
    timeout ${PROFILE_TIMEOUT_S:-120} "$ncu_bin" --csv --clock-control none --metrics gpu__time_duration.sum \
      -k "regex:($bp_kernels)" \
      "${run[@]}" > "$out/zstd_profile_ncu_$kib.csv" 2>/dev/null
    python3 bench/gpu/ncu_kernel_times.py "$out/zstd_profile_ncu_$kib.csv"
    echo
  done
  kib=${sizes%%,*}
  bp_row "$kib"
  echo "# block-parallel $state_kernel, level $level, $kib KiB chunks: warp state"
  SASS_TAG=$state_kernel kernel_state "$state_kernel" MemoryWorkloadAnalysis "${run[@]}"
  unset ZARRGPU_ZSTD_BLOCK_PARALLEL
  if [ "${PROFILE_ONE_WARP:-1}" != 0 ]; then
    for lv in ${PROFILE_ONE_WARP_LEVELS:-1}; do
      echo
      echo "# one-warp kernel, level $lv, 64 KiB chunks"
      SASS_TAG=l$lv kernel_state decompress_kernel SchedulerStats "$bench" --gib 0.25 --gib-l19 0.25 --runs 1 \
        --levels "$lv" --chunk-kib 64 --no-cpu --no-nvcomp --out /tmp/zstd_profile_bench
    done
  fi
} > "$report" 2>&1
cat "$report"
