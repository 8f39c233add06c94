// Each kernel against a host reference on random inputs. Needs a GPU at run
// time; skips without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include <cuda_runtime_api.h>

#include "codec/array_to_array/numcodecs/delta_kernel.hpp"
#include "codec/array_to_bytes/bytes/byte_swap_kernel.hpp"
#include "codec/bytes_to_bytes/numcodecs/shuffle_kernel.hpp"
#include "gpu/cuda_buffer.hpp"
#include "gpu/fill.hpp"
#include "gpu/place.hpp"
#include "gpu/stream.hpp"
#include "zarrgpu/device.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::gpu {
namespace {

using codec::DeviceArrayItem;
using codec::DeviceBytesItem;

class Kernels : public ::testing::Test {
 public:  // the free test helpers below use the fixture too
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
    stream_.emplace();
  }
  Stream& stream() { return *stream_; }
  // On the test's stream, which the kernels run on: it does not wait for the
  // legacy default stream (non-blocking), and a cudaMemcpy from pageable
  // memory may return before its DMA has landed.
  template <class T> DeviceBuffer upload(const std::vector<T>& v) {
    DeviceBuffer b(std::max<std::size_t>(v.size() * sizeof(T), 1));
    upload_to(b.data(), v);
    return b;
  }
  template <class T> void upload_to(void* dst, const std::vector<T>& v) {
    if (v.empty()) return;
    ZARRGPU_CUDA_CHECK(cudaMemcpyAsync(dst, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, stream().get()));
    stream().synchronize();
  }
  std::vector<std::byte> download(const DeviceBuffer& b, std::size_t bytes) {
    std::vector<std::byte> v(bytes);
    ZARRGPU_CUDA_CHECK(cudaMemcpy(v.data(), b.data(), bytes, cudaMemcpyDeviceToHost));
    return v;
  }
  std::optional<Stream> stream_;  // created after the device check
  std::mt19937_64 rng{7};
};

std::vector<std::byte> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::byte> v(n);
  for (auto& b : v) b = static_cast<std::byte>(rng());
  return v;
}

// Host reference of place(): element by element through place_offsets.
void place_reference(const std::vector<PlaceBox>& boxes, const std::vector<std::byte>& src, std::vector<std::byte>& out,
                     unsigned es, const Vec16& fill) {
  for (const PlaceBox& b : boxes) {
    for (std::uint64_t k = 0; k < b.elements; ++k) {
      const PlaceOffsets o = place_offsets(b, k);
      std::byte e[16];
      if (b.src_offset == kFillSource) {
        std::memcpy(e, &fill, es);
      } else {
        std::memcpy(e, src.data() + b.src_offset + o.src * es, es);
        if (b.swap > 1)
          for (unsigned c = 0; c < es; c += b.swap) std::reverse(e + c, e + c + b.swap);
      }
      std::memcpy(out.data() + o.out * es, e, es);
    }
  }
}

TEST_F(Kernels, PlaceMatchesHostReference) {
  for (unsigned es : {1u, 2u, 4u, 8u, 16u}) {
    // Output 2-D (R x C); chunks of (r x c) tile it; some chunks missing
    // (fill), some reversed, some transposed, some byte-swapped.
    const std::uint64_t R = 70, C = 300, r = 16, c = 128;
    std::vector<PlaceBox> boxes;
    std::vector<std::byte> src;
    for (std::uint64_t i0 = 0; i0 < R; i0 += r) {
      for (std::uint64_t j0 = 0; j0 < C; j0 += c) {
        const std::uint64_t nr = std::min(r, R - i0), nc = std::min(c, C - j0);
        const int kind = static_cast<int>(rng() % 4);
        PlaceBox b;
        std::vector<std::uint64_t> count{nr, nc};
        std::vector<std::int64_t> ss{static_cast<std::int64_t>(c), 1}, os{static_cast<std::int64_t>(C), 1};
        std::uint64_t src_first = 0;
        if (kind == 1) { ss = {1, static_cast<std::int64_t>(r)}; }              // transposed chunk
        if (kind == 2) { ss = {static_cast<std::int64_t>(c), -1}; src_first = nc - 1; }  // reversed columns
        ASSERT_TRUE(collapse_box(count, ss, os, b));
        b.src_first = src_first;
        b.out_first = i0 * C + j0;
        if (kind == 3) {
          b.src_offset = kFillSource;
        } else {
          b.src_offset = src.size();
          auto bytes = random_bytes(rng, r * c * es);
          src.insert(src.end(), bytes.begin(), bytes.end());
          src.resize((src.size() + 255) / 256 * 256);
          b.swap = (rng() % 2 && es > 1) ? (es == 16 ? 8 : es) : 0;
        }
        boxes.push_back(b);
      }
    }
    const std::uint64_t tiles = assign_tiles(boxes, place_tile_elements(es));
    Vec16 fill{0x0123456789abcdefull, 0xfedcba9876543210ull};
    std::vector<std::byte> expect(R * C * es, std::byte{0x5a});
    place_reference(boxes, src, expect, es, fill);

    DeviceBuffer d_boxes = upload(boxes), d_src = upload(src);
    DeviceBuffer d_out(R * C * es);
    ZARRGPU_CUDA_CHECK(cudaMemsetAsync(d_out.data(), 0x5a, R * C * es, stream().get()));
    PlaceLaunch l{d_boxes.as<PlaceBox>(), static_cast<std::uint32_t>(boxes.size()), tiles, d_src.data(), d_out.data(), es, fill};
    place(l, stream().get());
    stream().synchronize();
    EXPECT_EQ(download(d_out, R * C * es), expect) << "element size " << es;
  }
}

TEST_F(Kernels, PlaceLargeContiguousRunUsesEveryTile) {
  const unsigned es = 4;
  const std::uint64_t n = 3 * place_tile_elements(es) + 5;  // ends inside a vector
  auto src = random_bytes(rng, n * es);
  PlaceBox b;
  std::vector<std::uint64_t> count{n};
  std::vector<std::int64_t> one{1};
  ASSERT_TRUE(collapse_box(count, one, one, b));
  b.src_offset = 0;
  b.out_first = 4;  // 16-byte aligned output offset
  b.swap = 4;
  std::vector<PlaceBox> boxes{b};
  const std::uint64_t tiles = assign_tiles(boxes, place_tile_elements(es));
  std::vector<std::byte> expect((n + 8) * es, std::byte{0});
  place_reference(boxes, src, expect, es, Vec16{});
  DeviceBuffer d_boxes = upload(boxes), d_src = upload(src), d_out((n + 8) * es);
  ZARRGPU_CUDA_CHECK(cudaMemsetAsync(d_out.data(), 0, (n + 8) * es, stream().get()));
  place(PlaceLaunch{d_boxes.as<PlaceBox>(), 1, tiles, d_src.data(), d_out.data(), es, Vec16{}}, stream().get());
  stream().synchronize();
  EXPECT_EQ(download(d_out, (n + 8) * es), expect);
}

TEST_F(Kernels, FillAnyElementSizeAndAlignment) {
  for (unsigned es : {1u, 2u, 4u, 8u, 16u}) {
    for (std::uint64_t skip : {0u, 1u, 3u}) {
      const std::uint64_t n = 1000 + skip;
      DeviceBuffer d((n + skip + 4) * es);
      ZARRGPU_CUDA_CHECK(cudaMemsetAsync(d.data(), 0, d.size(), stream().get()));
      const Vec16 v{0x1122334455667788ull, 0x99aabbccddeeff00ull};
      fill(d.data() + skip * es, n, es, v, stream().get());
      stream().synchronize();
      const auto got = download(d, d.size());
      std::vector<std::byte> expect(d.size(), std::byte{0});
      for (std::uint64_t i = 0; i < n; ++i) std::memcpy(expect.data() + (skip + i) * es, &v, es);
      EXPECT_EQ(got, expect) << es << " " << skip;
    }
  }
}

TEST_F(Kernels, ByteSwapComponents) {
  struct Case { unsigned es, component; };
  for (Case c : {Case{2, 2}, Case{4, 4}, Case{8, 8}, Case{8, 4}, Case{16, 8}}) {
    const std::uint64_t n = 777;
    auto data = random_bytes(rng, (n + 1) * c.es);
    DeviceBuffer d = upload(data);
    codec::byte_swap_async(d.data() + c.es, n, c.es, c.component, stream().get());  // an offset start: head/tail paths
    stream().synchronize();
    auto expect = data;
    for (std::uint64_t i = 1; i <= n; ++i)
      for (unsigned k = 0; k < c.es; k += c.component)
        std::reverse(expect.begin() + i * c.es + k, expect.begin() + i * c.es + k + c.component);
    EXPECT_EQ(download(d, data.size()), expect) << c.es << "/" << c.component;
  }
}

TEST_F(Kernels, UnshuffleMatchesNumcodecs) {
  for (unsigned es : {1u, 2u, 4u, 8u, 3u}) {
    std::vector<DeviceBytesItem> items;
    std::vector<std::byte> src, expect;
    std::uint64_t at = 0;
    for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{1001}, std::uint64_t{es}, std::uint64_t{0}}) {
      auto s = random_bytes(rng, bytes);
      const std::uint64_t count = bytes / es;
      std::vector<std::byte> e(bytes);
      for (std::uint64_t i = 0; i < count; ++i)
        for (unsigned j = 0; j < es; ++j) e[i * es + j] = s[j * count + i];
      for (std::uint64_t i = count * es; i < bytes; ++i) e[i] = s[i];
      items.push_back(DeviceBytesItem{at, at, bytes});
      src.insert(src.end(), s.begin(), s.end());
      expect.insert(expect.end(), e.begin(), e.end());
      at += bytes;
    }
    DeviceBuffer d_items = upload(items), d_src = upload(src), d_dst(std::max<std::size_t>(src.size(), 1));
    codec::unshuffle_async(d_items.as<DeviceBytesItem>(), static_cast<std::uint32_t>(items.size()), 4096,
                           d_src.data(), d_dst.data(), es, stream().get());
    stream().synchronize();
    EXPECT_EQ(download(d_dst, src.size()), expect) << es;
  }
}

template <class T>
void delta_case(Kernels& test, std::mt19937_64& rng, Stream& stream, bool swap) {
  std::vector<DeviceArrayItem> items;
  std::vector<T> data, expect;
  for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2047}, std::uint64_t{2048}, std::uint64_t{5000}, std::uint64_t{0}}) {
    items.push_back(DeviceArrayItem{data.size() * sizeof(T), n});
    T acc = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const T d = static_cast<T>(rng());
      acc = static_cast<T>(acc + d);
      expect.push_back(acc);
      T stored = d;
      if (swap) {
        auto* p = reinterpret_cast<std::byte*>(&stored);
        std::reverse(p, p + sizeof(T));
      }
      data.push_back(stored);
    }
  }
  const std::size_t item_bytes = items.size() * sizeof(DeviceArrayItem);
  DeviceBuffer d_items(item_bytes), d_data(std::max<std::size_t>(data.size() * sizeof(T), 1));
  test.upload_to(d_items.data(), items);
  test.upload_to(d_data.data(), data);
  codec::delta_decode_async(d_items.as<DeviceArrayItem>(), static_cast<std::uint32_t>(items.size()), d_data.data(),
                            sizeof(T), swap ? sizeof(T) : 0, stream.get());
  stream.synchronize();
  std::vector<T> got(data.size());
  ZARRGPU_CUDA_CHECK(cudaMemcpy(got.data(), d_data.data(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, expect) << sizeof(T) << (swap ? " swapped" : "");
}

TEST_F(Kernels, DeltaDecodeWrapsLikeNumcodecs) {
  for (bool swap : {false, true}) {
    delta_case<std::uint8_t>(*this, rng, stream(), false);
    delta_case<std::uint16_t>(*this, rng, stream(), swap);
    delta_case<std::uint32_t>(*this, rng, stream(), swap);
    delta_case<std::uint64_t>(*this, rng, stream(), swap);
  }
}

TEST_F(Kernels, OutOfMemoryIsAClearError) {
  try {
    DeviceBuffer huge(std::size_t{1} << 50);
    FAIL() << "allocated a petabyte";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::device);
    EXPECT_NE(std::string(e.what()).find("out of GPU memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace zarrgpu::gpu
