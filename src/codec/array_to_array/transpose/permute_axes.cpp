#include "codec/array_to_array/transpose/permute_axes.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace zarrgpu::codec {

namespace {

template <std::size_t N>
struct Element {
  std::byte b[N];
};

// 2-d [rows, cols] -> [cols, rows] in square tiles, so both sides stay in cache.
template <class T>
void transpose_2d(const T* in, T* out, std::size_t rows, std::size_t cols) {
  constexpr std::size_t tile = 32;
  for (std::size_t r0 = 0; r0 < rows; r0 += tile) {
    const std::size_t r1 = std::min(rows, r0 + tile);
    for (std::size_t c0 = 0; c0 < cols; c0 += tile) {
      const std::size_t c1 = std::min(cols, c0 + tile);
      for (std::size_t c = c0; c < c1; ++c)
        for (std::size_t r = r0; r < r1; ++r) out[c * rows + r] = in[r * cols + c];
    }
  }
}

// Walks `out` in C order; `stride[k]` is the input stride (in elements) of output axis k.
template <class T>
void gather(const T* in, T* out, const std::vector<std::uint64_t>& shape,
            const std::vector<std::uint64_t>& stride) {
  const std::size_t n = shape.size();
  const std::uint64_t inner = shape[n - 1], inner_stride = stride[n - 1];
  std::vector<std::uint64_t> index(n, 0);
  std::uint64_t in_offset = 0;
  for (;;) {
    const T* src = in + in_offset;
    for (std::uint64_t i = 0; i < inner; ++i) out[i] = src[i * inner_stride];
    out += inner;
    // Odometer over the outer axes.
    std::size_t k = n - 1;
    for (;;) {
      if (k == 0) return;
      --k;
      in_offset += stride[k];
      if (++index[k] < shape[k]) break;
      in_offset -= stride[k] * shape[k];
      index[k] = 0;
    }
  }
}

template <class T>
void run(const std::byte* in, std::byte* out, const std::vector<std::uint64_t>& shape,
         const std::vector<std::uint64_t>& stride) {
  const T* src = reinterpret_cast<const T*>(in);
  T* dst = reinterpret_cast<T*>(out);
  if (shape.size() == 2 && stride[1] == shape[0] && stride[0] == 1)
    transpose_2d(src, dst, shape[1], shape[0]);
  else
    gather(src, dst, shape, stride);
}

}  // namespace

void permute_axes(std::span<const std::byte> in, std::span<std::byte> out,
                  std::span<const std::uint64_t> in_shape, std::span<const std::size_t> perm,
                  std::size_t element_size) {
  const std::size_t n = in_shape.size();
  std::uint64_t total = 1;
  for (auto s : in_shape) total *= s;
  if (total == 0) return;

  std::vector<std::uint64_t> in_stride(n, 1);
  for (std::size_t k = n; k-- > 1;) in_stride[k - 1] = in_stride[k] * in_shape[k];

  // Output axes with their input strides, without unit axes, and with runs
  // of axes that stay adjacent in the input merged into one.
  std::vector<std::uint64_t> shape, stride;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint64_t s = in_shape[perm[k]], st = in_stride[perm[k]];
    if (s == 1) continue;
    if (!shape.empty() && stride.back() == st * s) {
      shape.back() *= s;
      stride.back() = st;
    } else {
      shape.push_back(s);
      stride.push_back(st);
    }
  }
  if (shape.empty() || (shape.size() == 1 && stride[0] == 1)) {
    std::memcpy(out.data(), in.data(), total * element_size);
    return;
  }
  switch (element_size) {
    case 1: run<Element<1>>(in.data(), out.data(), shape, stride); return;
    case 2: run<Element<2>>(in.data(), out.data(), shape, stride); return;
    case 4: run<Element<4>>(in.data(), out.data(), shape, stride); return;
    case 8: run<Element<8>>(in.data(), out.data(), shape, stride); return;
    case 16: run<Element<16>>(in.data(), out.data(), shape, stride); return;
  }
  // Any other size: axes scaled to bytes, with a trailing byte axis.
  for (auto& st : stride) st *= element_size;
  shape.push_back(element_size);
  stride.push_back(1);
  gather(reinterpret_cast<const Element<1>*>(in.data()), reinterpret_cast<Element<1>*>(out.data()), shape, stride);
}

}  // namespace zarrgpu::codec
