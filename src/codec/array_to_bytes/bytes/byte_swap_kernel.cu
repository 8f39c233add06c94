#include "codec/array_to_bytes/bytes/byte_swap_kernel.hpp"

#include <algorithm>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/vector_access.cuh"
#include "zarrgpu/error.hpp"

namespace zarrgpu::codec {
namespace {

using gpu::load16;
using gpu::load_element;
using gpu::store16;
using gpu::store_element;
using gpu::swap_components;
using gpu::Vec16;

struct ByteSwapPolicy {
  static constexpr int kBlockThreads = 256;
  static constexpr int kMaxBlocks = 4096;
};

// Head elements to a 16-byte boundary, 16-byte vectors (each vector holds
// whole components since the element size divides 16), tail elements.
template <class T>
__global__ void __launch_bounds__(ByteSwapPolicy::kBlockThreads)
byte_swap_kernel(T* __restrict__ data, std::uint64_t elements, std::uint64_t head, std::uint64_t vectors, unsigned component) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  const std::uint64_t tid = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (std::uint64_t i = tid; i < head; i += stride) store_element(data + i, swap_components(load_element(data + i), component));
  Vec16* v = reinterpret_cast<Vec16*>(data + head);
  for (std::uint64_t i = tid; i < vectors; i += stride) store16(v + i, swap_components(load16(v + i), component));
  const std::uint64_t tail = head + vectors * (16 / sizeof(T));
  for (std::uint64_t i = tail + tid; i < elements; i += stride) store_element(data + i, swap_components(load_element(data + i), component));
}

template <class T>
void dispatch(std::byte* data, std::uint64_t elements, unsigned component, DeviceStream stream) {
  const auto addr = reinterpret_cast<std::uintptr_t>(data);
  const std::uint64_t head = std::min<std::uint64_t>(((16 - addr % 16) % 16) / sizeof(T), elements);
  const std::uint64_t vectors = (elements - head) * sizeof(T) / 16;
  const std::uint64_t work = std::max<std::uint64_t>(vectors, 1);
  const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(
      ByteSwapPolicy::kMaxBlocks, (work + ByteSwapPolicy::kBlockThreads - 1) / ByteSwapPolicy::kBlockThreads));
  byte_swap_kernel<T><<<blocks, ByteSwapPolicy::kBlockThreads, 0, stream>>>(reinterpret_cast<T*>(data), elements, head, vectors, component);
  ZARRGPU_CUDA_CHECK_LAUNCH("byte_swap_kernel");
}

}  // namespace

void byte_swap_async(std::byte* data, std::uint64_t elements, unsigned element_size, unsigned component,
                     DeviceStream stream) {
  if (elements == 0 || component <= 1) return;
  if (component > 8 || element_size % component != 0)
    throw Error(ErrorKind::unsupported, "byte_swap: component of " + std::to_string(component) +
                                            " bytes in elements of " + std::to_string(element_size));
  switch (element_size) {
    case 2: return dispatch<std::uint16_t>(data, elements, component, stream);
    case 4: return dispatch<std::uint32_t>(data, elements, component, stream);
    case 8: return dispatch<std::uint64_t>(data, elements, component, stream);
    case 16: return dispatch<Vec16>(data, elements, component, stream);
    default:
      throw Error(ErrorKind::unsupported, "byte_swap: element size " + std::to_string(element_size));
  }
}

}  // namespace zarrgpu::codec
