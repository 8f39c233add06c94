// 16-byte loads and stores (LDG.128 / STG.128) and typed element access for
// the kernels. Device code only.
#pragma once

#include <cstdint>

#include "gpu/vec16.hpp"

namespace zarrgpu::gpu {

__device__ __forceinline__ Vec16 load16(const void* p) {
  const uint4 v = *static_cast<const uint4*>(p);
  return Vec16{(static_cast<std::uint64_t>(v.y) << 32) | v.x, (static_cast<std::uint64_t>(v.w) << 32) | v.z};
}
__device__ __forceinline__ void store16(void* p, Vec16 v) {
  *static_cast<uint4*>(p) = make_uint4(static_cast<unsigned>(v.lo), static_cast<unsigned>(v.lo >> 32),
                                       static_cast<unsigned>(v.hi), static_cast<unsigned>(v.hi >> 32));
}

// One element of size sizeof(T): plain integers, or Vec16 for 16-byte elements.
template <class T> __device__ __forceinline__ T load_element(const T* p) { return *p; }
template <> __device__ __forceinline__ Vec16 load_element<Vec16>(const Vec16* p) { return load16(p); }
template <class T> __device__ __forceinline__ void store_element(T* p, T v) { *p = v; }
template <> __device__ __forceinline__ void store_element<Vec16>(Vec16* p, Vec16 v) { store16(p, v); }

// The first sizeof(T) bytes of a 16-byte value (little-endian).
template <class T> __device__ __forceinline__ T low_bytes(Vec16 v) { return static_cast<T>(v.lo); }
template <> __device__ __forceinline__ Vec16 low_bytes<Vec16>(Vec16 v) { return v; }

// Element type for an element size (1, 2, 4, 8, 16 bytes).
template <unsigned Size> struct ElementOf;
template <> struct ElementOf<1> { using type = std::uint8_t; };
template <> struct ElementOf<2> { using type = std::uint16_t; };
template <> struct ElementOf<4> { using type = std::uint32_t; };
template <> struct ElementOf<8> { using type = std::uint64_t; };
template <> struct ElementOf<16> { using type = Vec16; };

}  // namespace zarrgpu::gpu
