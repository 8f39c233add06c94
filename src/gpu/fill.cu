#include "gpu/fill.hpp"

#include <algorithm>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/vector_access.cuh"
#include "zarrgpu/error.hpp"

namespace zarrgpu::gpu {
namespace {

struct FillPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kMaxBlocks = 4096;  // grid-stride beyond: enough to fill every SM many times
};

// Head elements up to the first 16-byte boundary, 16-byte pattern stores,
// tail elements; all grid-strided.
template <class T>
__global__ void __launch_bounds__(FillPolicy::kBlockThreads)
fill_kernel(T* __restrict__ out, std::uint64_t elements, std::uint64_t head, std::uint64_t vectors, Vec16 value) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  const std::uint64_t tid = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const T v = low_bytes<T>(value);
  const Vec16 pattern = replicate_pattern(value, sizeof(T));
  for (std::uint64_t i = tid; i < head; i += stride) store_element(out + i, v);
  Vec16* vout = reinterpret_cast<Vec16*>(out + head);
  for (std::uint64_t i = tid; i < vectors; i += stride) store16(vout + i, pattern);
  const std::uint64_t tail = head + vectors * (16 / sizeof(T));
  for (std::uint64_t i = tail + tid; i < elements; i += stride) store_element(out + i, v);
}

template <class T>
void dispatch(std::byte* out, std::uint64_t elements, Vec16 value, cudaStream_t stream) {
  const auto addr = reinterpret_cast<std::uintptr_t>(out);
  std::uint64_t head = ((16 - addr % 16) % 16) / sizeof(T);
  head = std::min(head, elements);
  const std::uint64_t vectors = (elements - head) * sizeof(T) / 16;
  const std::uint64_t work = std::max<std::uint64_t>(vectors, 1);
  const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(
      FillPolicy::kMaxBlocks, (work + FillPolicy::kBlockThreads - 1) / FillPolicy::kBlockThreads));
  fill_kernel<T><<<blocks, FillPolicy::kBlockThreads, 0, stream>>>(reinterpret_cast<T*>(out), elements, head, vectors, value);
  ZARRGPU_CUDA_CHECK_LAUNCH("fill_kernel");
}

}  // namespace

void fill(std::byte* out, std::uint64_t elements, unsigned element_size, Vec16 value, cudaStream_t stream) {
  if (elements == 0) return;
  switch (element_size) {
    case 1: return dispatch<std::uint8_t>(out, elements, value, stream);
    case 2: return dispatch<std::uint16_t>(out, elements, value, stream);
    case 4: return dispatch<std::uint32_t>(out, elements, value, stream);
    case 8: return dispatch<std::uint64_t>(out, elements, value, stream);
    case 16: return dispatch<Vec16>(out, elements, value, stream);
    default:
      throw Error(ErrorKind::unsupported, "fill: element size " + std::to_string(element_size));
  }
}

}  // namespace zarrgpu::gpu
