// The placement index math, on the host: collapsing, element offsets and tile
// lookup must match a naive walk over the box in C order.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpu/place_box.hpp"

namespace zarrgpu::gpu {
namespace {

struct Naive {
  std::vector<std::uint64_t> count;
  std::vector<std::int64_t> src_stride, out_stride;
  std::int64_t src_first = 0, out_first = 0;
  std::vector<PlaceOffsets> walk() const {
    std::vector<PlaceOffsets> r;
    std::uint64_t n = 1;
    for (auto c : count) n *= c;
    std::vector<std::uint64_t> idx(count.size(), 0);
    for (std::uint64_t k = 0; k < n; ++k) {
      std::int64_t s = src_first, o = out_first;
      for (std::size_t d = 0; d < count.size(); ++d) {
        s += static_cast<std::int64_t>(idx[d]) * src_stride[d];
        o += static_cast<std::int64_t>(idx[d]) * out_stride[d];
      }
      r.push_back({s, o});
      for (std::size_t d = count.size(); d-- > 0;) {
        if (++idx[d] < count[d]) break;
        idx[d] = 0;
      }
    }
    return r;
  }
};

void expect_same(const Naive& n, const PlaceBox& b) {
  const auto ref = n.walk();
  ASSERT_EQ(b.elements, ref.size());
  for (std::uint64_t k = 0; k < ref.size(); ++k) {
    const PlaceOffsets o = place_offsets(b, k);
    ASSERT_EQ(o.src, ref[k].src) << "k=" << k;
    ASSERT_EQ(o.out, ref[k].out) << "k=" << k;
  }
}

PlaceBox make(const Naive& n) {
  PlaceBox b;
  EXPECT_TRUE(collapse_box(n.count, n.src_stride, n.out_stride, b));
  b.src_first = static_cast<std::uint64_t>(n.src_first);
  b.out_first = static_cast<std::uint64_t>(n.out_first);
  return b;
}

TEST(PlaceBox, WholeChunkIntoWholeRowsIsOneRun) {
  // A 4x5x6 chunk into an output of shape (8, 5, 6) at row 4.
  Naive n{{4, 5, 6}, {30, 6, 1}, {30, 6, 1}, 0, 120};
  const PlaceBox b = make(n);
  EXPECT_EQ(b.ndim, 1u);
  EXPECT_TRUE(box_is_contiguous(b));
  EXPECT_EQ(b.count[0], 120u);
  expect_same(n, b);
}

TEST(PlaceBox, PartialRowsStayTwoDimensional) {
  // Rows 1..3, columns 2..5 of a 4x8 chunk into a 3x4 output.
  Naive n{{3, 4}, {8, 1}, {4, 1}, 1 * 8 + 2, 0};
  const PlaceBox b = make(n);
  EXPECT_EQ(b.ndim, 2u);
  EXPECT_FALSE(box_is_contiguous(b));
  expect_same(n, b);
}

TEST(PlaceBox, CountOneDimensionsDrop) {
  Naive n{{1, 7, 1}, {100, 3, 1}, {50, 1, 9}, 5, 2};
  const PlaceBox b = make(n);
  EXPECT_EQ(b.ndim, 1u);
  EXPECT_EQ(b.src_stride[0], 3);
  expect_same(n, b);
}

TEST(PlaceBox, SingleElement) {
  Naive n{{1, 1}, {10, 1}, {4, 1}, 13, 6};
  const PlaceBox b = make(n);
  EXPECT_EQ(b.ndim, 1u);
  EXPECT_EQ(b.elements, 1u);
  expect_same(n, b);
}

TEST(PlaceBox, ReversedAndTransposedSources) {
  // A reverse slice (negative chunk step) over a transposed chunk: source
  // strides permuted (the encoded array is 6x4, decoded 4x6) and negated.
  Naive n{{4, 6}, {-1, 4}, {6, 1}, 3, 0};
  expect_same(n, make(n));
  Naive m{{3, 2, 5}, {-2, 50, -10}, {10, 5, 1}, 200, 7};
  expect_same(m, make(m));
}

TEST(PlaceBox, RandomBoxesMatchNaiveWalk) {
  std::mt19937_64 rng(42);
  for (int t = 0; t < 300; ++t) {
    const int ndim = 1 + static_cast<int>(rng() % 6);
    Naive n;
    std::vector<std::uint64_t> shape(ndim);
    for (int d = 0; d < ndim; ++d) {
      shape[d] = 1 + rng() % 5;
      n.count.push_back(1 + rng() % shape[d]);
    }
    std::vector<std::int64_t> c(ndim);
    c_order_strides(shape, c);
    std::vector<std::int64_t> o(ndim);
    c_order_strides(n.count, o);
    for (int d = 0; d < ndim; ++d) {
      const std::int64_t step = (rng() % 3 == 0) ? -1 : 1;
      n.src_stride.push_back(step * c[d]);
      n.out_stride.push_back(o[d]);
    }
    // a permuted source sometimes (transpose codec)
    if (rng() % 2) std::shuffle(n.src_stride.begin(), n.src_stride.end(), rng);
    n.src_first = 1000;
    n.out_first = static_cast<std::int64_t>(rng() % 100);
    expect_same(n, make(n));
  }
}

TEST(PlaceBox, RefusesTooManyDimensions) {
  std::vector<std::uint64_t> count(10, 2);
  std::vector<std::int64_t> s(10), o(10);
  for (int d = 0; d < 10; ++d) {
    s[d] = std::int64_t{1} << (2 * d);  // never mergeable
    o[d] = std::int64_t{1} << (10 - d);
  }
  PlaceBox b;
  EXPECT_FALSE(collapse_box(count, s, o, b));
}

TEST(PlaceBox, TilesAndLookup) {
  std::vector<PlaceBox> boxes(4);
  boxes[0].elements = 10;
  boxes[1].elements = 1;
  boxes[2].elements = 25;
  boxes[3].elements = 8;
  EXPECT_EQ(assign_tiles(boxes, 8), 2u + 1 + 4 + 1);
  EXPECT_EQ(boxes[0].tile_begin, 0u);
  EXPECT_EQ(boxes[1].tile_begin, 2u);
  EXPECT_EQ(boxes[2].tile_begin, 3u);
  EXPECT_EQ(boxes[3].tile_begin, 7u);
  const std::uint32_t expect[] = {0, 0, 1, 2, 2, 2, 2, 3};
  for (std::uint64_t t = 0; t < 8; ++t) EXPECT_EQ(find_box(boxes.data(), 4, t), expect[t]) << t;
}

}  // namespace
}  // namespace zarrgpu::gpu
