# Sourced by the GPU machine's profiling scripts (bench/gpu/read_profile.sh,
# bench/zstd_gpu/profile.sh, bench/zstd_gpu/peer_launches.sh): the
# repository root as the working directory ($root), the report folder ($out:
# $OUT, or bench/results), CUDA's tools on PATH, Nsight Compute ($ncu_bin,
# empty when missing: require_ncu stops there), and where bench/gpu/zstd.sh
# built the Zstd bench (zstd_bench_path).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 1
out=${OUT:-$root/bench/results}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
require_ncu() { [ -n "$ncu_bin" ] || { echo "no ncu"; exit 1; }; }
zstd_bench_path() {
  local b
  b=$(find build-zstd-gpu -type f -name zstd_gpu_bench -perm -u+x 2>/dev/null | head -1)
  [ -n "$b" ] || { echo "no zstd_gpu_bench: run bench/gpu/zstd.sh first" >&2; return 1; }
  echo "$b"
}
