#!/usr/bin/env bash
# How nvCOMP's batched Zstd decoder launches its kernels, beside ours, with
# Nsight Compute on the GPU machine (after bench/gpu/zstd.sh built the bench):
# each kernel's launches, time, grid, block, registers, shared memory and
# achieved occupancy, for level PEER_LEVEL (19) at each of PEER_CHUNK_KIB
# (64,1024), PEER_GIB (0.25) of data. Prior art read from the outside: where
# its time goes and how it fills the chip, not its code.
# Writes $OUT/zstd_peer_launches.txt (or bench/results/).
source "$(dirname "${BASH_SOURCE[0]}")/../gpu/ncu_common.sh"
bench=$(zstd_bench_path) || exit 1
require_ncu
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
metrics+=,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem
report=$out/zstd_peer_launches.txt
{
  for kib in $(echo "${PEER_CHUNK_KIB:-64,1024}" | tr , ' '); do
    echo "# level ${PEER_LEVEL:-19}, $kib KiB chunks, ${PEER_GIB:-0.25} GiB ($(date -u '+%F %H:%M UTC'))"
    timeout "${PEER_TIMEOUT_S:-180}" "$ncu_bin" --csv --clock-control none --metrics "$metrics" \
      "$bench" --gib "${PEER_GIB:-0.25}" --gib-l19 "${PEER_GIB:-0.25}" --runs 1 --levels "${PEER_LEVEL:-19}" \
      --chunk-kib "$kib" --no-cpu --out /tmp/zstd_peer_bench --cache "${ZSTD_BENCH_CACHE:-/tmp/zstd_bench_cache}" \
      > "$out/zstd_peer_ncu_$kib.csv" 2>/dev/null
    python3 bench/gpu/ncu_launches.py "$out/zstd_peer_ncu_$kib.csv"
    echo
  done
} > "$report" 2>&1
cat "$report"
