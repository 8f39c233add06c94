#!/usr/bin/env bash
# Parses and type-checks the GPU Zstd decoder's CUDA code (kernels, agents,
# dispatch) for host and device with clang, against the stand-in runtime
# header here: CI has no CUDA SDK, and this catches the compile errors that
# would otherwise first show on the GPU machine. Skips (exit 0) without clang.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
CXX=${CXX_CUDA_CHECK:-$(command -v clang++ || true)}
[ -n "$CXX" ] || { echo "cuda syntax check: no clang++, skipped"; exit 0; }
# sm_80 is the newest architecture older clang releases know; the code has no
# sm_90-only paths. __CUDACC__ selects the decoder's __host__ __device__ macros.
"$CXX" -std=c++20 -x cuda --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -fsyntax-only -Wno-unknown-cuda-version \
  -D__CUDACC__ -I"$here" -I"$root/src" -I"$root/include" \
  "$root/src/codec/bytes_to_bytes/zstd/gpu/dispatch_decompress.cu"
echo "cuda syntax check: GPU Zstd decoder parses for host and device"
