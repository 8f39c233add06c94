#!/usr/bin/env bash
# Which source lines of one GPU Zstd kernel the warps stall on, with Nsight
# Compute's warp-state sampling (the kernels build with -lineinfo), after
# bench/gpu/zstd.sh built the bench (build-zstd-gpu):
#   HOTSPOT_KERNEL   kernel name regex (sections_kernel)
#   HOTSPOT_LEVEL, HOTSPOT_CHUNK_KIB   the configuration (3, 4096)
#   HOTSPOT_BLOCK_PARALLEL             1 forces the block-parallel path (1)
# Writes $OUT/zstd_hotspots_<kernel>.txt: warp state statistics, then the
# source lines with the most stall samples and the reason that dominates each.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
out=${OUT:-$root/bench/results}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
bench=$(find build-zstd-gpu -type f -name zstd_gpu_bench -perm -u+x | head -1)
[ -n "$bench" ] || { echo "no zstd_gpu_bench: run bench/gpu/zstd.sh first"; exit 1; }
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu_bin" ] || { echo "no ncu"; exit 1; }
kernel=${HOTSPOT_KERNEL:-sections_kernel}
bp=(); [ "${HOTSPOT_BLOCK_PARALLEL:-1}" = 1 ] && bp=(--block-parallel)
rep=/tmp/zstd_hotspots_$kernel
report=$out/zstd_hotspots_$kernel.txt
{
  echo "# $kernel, level ${HOTSPOT_LEVEL:-3}, ${HOTSPOT_CHUNK_KIB:-4096} KiB chunks ($(date -u +%F))"
  rm -f "$rep.ncu-rep"
  timeout ${PROFILE_TIMEOUT_S:-180} "$ncu_bin" --clock-control none -k "regex:$kernel" -c 1 --import-source yes \
    --section WarpStateStats --section SourceCounters --section Occupancy --section LaunchStats -o "$rep" \
    "$bench" --gib 0.25 --gib-l19 0 --runs 1 --levels "${HOTSPOT_LEVEL:-3}" --chunk-kib "${HOTSPOT_CHUNK_KIB:-4096}" \
    --no-cpu --no-nvcomp "${bp[@]}" --out /tmp/zstd_hotspots_bench > /dev/null 2>&1
  "$ncu_bin" -i "$rep.ncu-rep" --print-summary none 2>&1 | grep -vE "^==PROF==" | sed -n '/Section: Warp State/,$p' | head -80
  "$ncu_bin" -i "$rep.ncu-rep" --page source --csv --print-source cuda > "$rep.csv" 2>/dev/null
  python3 bench/zstd_gpu/hotspots.py "$rep.csv" "${HOTSPOT_LINES:-40}"
  cp "$rep.csv" "$out/"
} > "$report" 2>&1
cat "$report"
