#!/usr/bin/env bash
# Parses and type-checks zarrgpu's CUDA code with clang against the
# declarations-only runtime header here: CI has no CUDA SDK, and this
# catches the compile errors that would otherwise first show on the GPU
# machine. Checked: the GPU Zstd decoder (dispatch, agents, kernels) for host
# and device; the batched LZ4 and Blosc decoders; every host source of src/gpu
# and src/engine/device_read, the codecs' device forms, the GPU tests and benchmarks that only build with
# CUDA, and src/ipc's CUDA sources (the driver API through a stand-in cuda.h here).
# Not checked: the small kernels' .cu files (src/gpu: fill, place; the shuffle,
# delta and byte-swap kernels in their codec folders): clang's CUDA wrappers
# of the standard headers need the real runtime headers, and delta uses CUB;
# the CI's nvcc build compiles them. Their headers are checked through the
# host files that include them.
# Skips (exit 0) without clang.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
CXX=${CXX_CUDA_CHECK:-$(command -v clang++ || true)}
[ -n "$CXX" ] || { echo "cuda syntax check: no clang++, skipped"; exit 0; }
inc=(-I"$here" -I"$root/src" -I"$root/include")
status=0
# sm_80 is the newest architecture older clang releases know; the code has no
# sm_90-only paths. __CUDACC__ selects the decoder's __host__ __device__ macros.
"$CXX" -std=c++20 -x cuda --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -fsyntax-only -Wno-unknown-cuda-version \
  -D__CUDACC__ "${inc[@]}" "$root/src/codec/bytes_to_bytes/zstd/gpu/dispatch_decompress.cu" || status=1
# The same dispatch in its experiments build (the benchmark's and GPU tests').
"$CXX" -std=c++20 -x cuda --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -fsyntax-only -Wno-unknown-cuda-version \
  -D__CUDACC__ -DZARRGPU_ZSTD_EXPERIMENTS=1 "${inc[@]}" -I"$root/bench/zstd_gpu" \
  "$root/src/codec/bytes_to_bytes/zstd/gpu/dispatch_decompress.cu" || status=1
# The batched LZ4 and Blosc decoders.
for f in "$root/src/codec/bytes_to_bytes/lz4/gpu/dispatch_decompress.cu" \
         "$root/src/codec/bytes_to_bytes/blosc/gpu/dispatch_decompress.cu"; do
  "$CXX" -std=c++20 -x cuda --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -fsyntax-only -Wno-unknown-cuda-version \
    -D__CUDACC__ "${inc[@]}" "$f" || status=1
done
n=3
for f in "$root"/src/gpu/*.cpp "$root"/src/engine/device_read/*.cpp "$root"/src/ipc/cuda_*.cpp "$root"/tests/gpu/*.cpp \
         "$root"/tests/engine_device_read/device_read_test.cpp \
         "$root"/tests/engine_device_read/device_read_lz4_blosc_test.cpp "$root"/bench/gpu_read/bench_gpu_read.cpp \
         "$root"/tests/codec/bytes_to_bytes/zstd_gpu/gpu_decoder_test.cpp "$root"/bench/zstd_gpu/zstd_gpu_bench.cpp \
         "$root"/tests/codec/bytes_to_bytes/lz4_gpu/gpu_decoder_test.cpp \
         "$root"/tests/codec/bytes_to_bytes/blosc_gpu/gpu_decoder_test.cpp; do
  "$CXX" -std=c++20 -fsyntax-only "${inc[@]}" -I"$root/tests" -I"$root/tests/codec/bytes_to_bytes/zstd_decoder" -I"$root/bench/zstd_gpu" \
    -I"$root/tests/codec/bytes_to_bytes/lz4_decoder" -I"$root/tests/codec/bytes_to_bytes/blosc_decoder" \
    -I"$root/tests/codec/bytes_to_bytes/lz4_gpu" \
    -DZARRGPU_CORPUS_DIR='"."' -DZARRGPU_SOURCE_DIR='"."' "$f" || status=1
  n=$((n + 1))
done
# The codecs' device forms, as the CUDA build compiles them.
for f in "$root"/src/codec/bytes_to_bytes/zstd/zstd_device_decoder.cpp \
         "$root"/src/codec/bytes_to_bytes/lz4/lz4_device_decoder.cpp \
         "$root"/src/codec/bytes_to_bytes/blosc/blosc_device_decoder.cpp \
         "$root"/src/codec/bytes_to_bytes/numcodecs/shuffle_device_step.cpp \
         "$root"/src/codec/array_to_array/numcodecs/delta_device_step.cpp; do
  "$CXX" -std=c++20 -fsyntax-only -DZARRGPU_HAVE_CUDA=1 "${inc[@]}" "$f" || status=1
  n=$((n + 1))
done
[ $status -eq 0 ] && echo "cuda syntax check: $n files parse (GPU Zstd decoder for host and device, CUDA host code, GPU tests)"
exit $status
