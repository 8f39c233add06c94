#include "engine/place.hpp"

#include <cstring>
#include <vector>

#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {

namespace {

// Drops dims of count 1 and merges neighbours that are contiguous on both
// sides, so the innermost loop is as long as possible.
struct Dims {
  std::int64_t src[32], dst[32];
  std::uint64_t count[32];
  int n = 0;
};

Dims normalise(std::span<const std::int64_t> src, std::span<const std::int64_t> dst,
               std::span<const std::uint64_t> counts) {
  Dims d;
  if (counts.size() > 32) throw Error(ErrorKind::unsupported, "more than 32 dimensions");
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 1) continue;
    d.src[d.n] = src[i];
    d.dst[d.n] = dst.empty() ? 0 : dst[i];
    d.count[d.n] = counts[i];
    ++d.n;
  }
  // Merge from the inside out.
  int w = d.n - 1;
  for (int i = d.n - 2; i >= 0 && w >= 0; --i) {
    if (d.src[i] == d.src[w] * std::int64_t(d.count[w]) && d.dst[i] == d.dst[w] * std::int64_t(d.count[w])) {
      d.count[w] *= d.count[i];
    } else {
      --w;
      d.src[w] = d.src[i];
      d.dst[w] = d.dst[i];
      d.count[w] = d.count[i];
    }
  }
  if (d.n > 0) {
    const int first = w;
    const int len = d.n - first;
    for (int k = 0; k < len; ++k) {
      d.src[k] = d.src[first + k];
      d.dst[k] = d.dst[first + k];
      d.count[k] = d.count[first + k];
    }
    d.n = len;
  }
  return d;
}

template <std::size_t N>
void copy_run_fixed(const std::byte* s, std::int64_t ss, std::byte* t, std::int64_t ts, std::uint64_t n) {
  for (std::uint64_t k = 0; k < n; ++k, s += ss, t += ts) std::memcpy(t, s, N);
}

void copy_run(const std::byte* s, std::int64_t ss, std::byte* t, std::int64_t ts, std::uint64_t n, std::size_t es) {
  const std::int64_t e = std::int64_t(es);
  if (ss == e && ts == e) { std::memcpy(t, s, n * es); return; }
  switch (es) {
    case 1: return copy_run_fixed<1>(s, ss, t, ts, n);
    case 2: return copy_run_fixed<2>(s, ss, t, ts, n);
    case 4: return copy_run_fixed<4>(s, ss, t, ts, n);
    case 8: return copy_run_fixed<8>(s, ss, t, ts, n);
    case 16: return copy_run_fixed<16>(s, ss, t, ts, n);
    default:
      for (std::uint64_t k = 0; k < n; ++k, s += ss, t += ts) std::memcpy(t, s, es);
  }
}

}  // namespace

void copy_box(const std::byte* src, std::span<const std::int64_t> src_strides, std::byte* dst,
              std::span<const std::int64_t> dst_strides, std::span<const std::uint64_t> counts,
              std::size_t es) {
  for (auto c : counts) if (c == 0) return;
  Dims d = normalise(src_strides, dst_strides, counts);
  if (d.n == 0) { std::memcpy(dst, src, es); return; }
  const int inner = d.n - 1;
  const std::int64_t e = std::int64_t(es);
  std::uint64_t idx[32] = {};
  while (true) {
    std::int64_t so = 0, to = 0;
    for (int i = 0; i < inner; ++i) { so += std::int64_t(idx[i]) * d.src[i]; to += std::int64_t(idx[i]) * d.dst[i]; }
    copy_run(src + so * e, d.src[inner] * e, dst + to * e, d.dst[inner] * e, d.count[inner], es);
    int i = inner - 1;
    for (; i >= 0; --i) {
      if (++idx[i] < d.count[i]) break;
      idx[i] = 0;
    }
    if (i < 0) return;
  }
}

void fill_box(std::byte* dst, std::span<const std::int64_t> dst_strides, std::span<const std::uint64_t> counts,
              const std::byte* value, std::size_t es) {
  for (auto c : counts) if (c == 0) return;
  Dims d = normalise(dst_strides, {}, counts);  // the "src" side carries dst's strides
  if (d.n == 0) { std::memcpy(dst, value, es); return; }
  const int inner = d.n - 1;
  const std::int64_t e = std::int64_t(es);
  bool zero = true;
  for (std::size_t k = 0; k < es; ++k) zero = zero && value[k] == std::byte{0};
  std::uint64_t idx[32] = {};
  while (true) {
    std::int64_t to = 0;
    for (int i = 0; i < inner; ++i) to += std::int64_t(idx[i]) * d.src[i];
    std::byte* t = dst + to * e;
    const std::uint64_t n = d.count[inner];
    if (d.src[inner] == 1 && zero) {
      std::memset(t, 0, n * es);
    } else if (d.src[inner] == 1 && es == 1) {
      std::memset(t, int(value[0]), n);
    } else {
      const std::int64_t step = d.src[inner] * e;
      for (std::uint64_t k = 0; k < n; ++k, t += step) std::memcpy(t, value, es);
    }
    int i = inner - 1;
    for (; i >= 0; --i) {
      if (++idx[i] < d.count[i]) break;
      idx[i] = 0;
    }
    if (i < 0) return;
  }
}

std::vector<std::int64_t> c_strides(std::span<const std::uint64_t> shape) {
  std::vector<std::int64_t> s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    s[d] = acc;
    acc *= std::int64_t(shape[d]);
  }
  return s;
}

ChunkBoxes chunk_boxes(const ChunkPlan& chunk, std::span<const std::uint64_t> chunk_shape,
                       std::span<const std::uint64_t> out_strides) {
  ChunkBoxes b;
  const auto cs = c_strides(chunk_shape);
  const std::size_t nd = chunk.dims.size();
  b.counts.resize(nd);
  b.chunk_strides.resize(nd);
  b.out_strides.resize(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    const auto& m = chunk.dims[d];
    b.counts[d] = m.count;
    b.chunk_strides[d] = m.chunk_step * cs[d];
    b.chunk_offset += std::int64_t(m.chunk_first) * cs[d];
    b.out_strides[d] = std::int64_t(out_strides[d]);
    b.out_offset += std::int64_t(m.out_first * out_strides[d]);
  }
  return b;
}

bool all_equal(std::span<const std::byte> data, const std::byte* value, std::size_t es) {
  const std::size_t n = data.size() / es;
  const std::byte* p = data.data();
  if (es == 1) {
    for (std::size_t i = 0; i < n; ++i) if (p[i] != value[0]) return false;
    return true;
  }
  for (std::size_t i = 0; i < n; ++i, p += es) {
    if (std::memcmp(p, value, es) != 0) return false;
  }
  return true;
}

}  // namespace zarrgpu::engine
