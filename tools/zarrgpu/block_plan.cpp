#include "block_plan.hpp"

#include <algorithm>
#include <numeric>

namespace zarrgpu::cli {

namespace {
std::uint64_t product(std::span<const std::uint64_t> v) {
  std::uint64_t p = 1;
  for (auto x : v) p *= x;
  return p;
}
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b ? (a + b - 1) / b : 0; }
}  // namespace

BlockPlan plan_blocks(std::span<const std::uint64_t> shape, std::size_t itemsize,
                      std::span<const std::uint64_t> write_unit, std::span<const std::uint64_t> source_chunk,
                      std::uint64_t memory_budget, unsigned threads, unsigned copies) {
  BlockPlan p;
  p.shape.assign(shape.begin(), shape.end());
  const std::size_t nd = shape.size();
  std::vector<std::uint64_t> unit(nd), aligned(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    unit[d] = std::min(std::max<std::uint64_t>(write_unit[d], 1), std::max<std::uint64_t>(shape[d], 1));
    std::uint64_t src = d < source_chunk.size() ? std::max<std::uint64_t>(source_chunk[d], 1) : 1;
    std::uint64_t l = std::lcm(std::max<std::uint64_t>(write_unit[d], 1), src);
    aligned[d] = std::min(l, std::max<std::uint64_t>(shape[d], 1));
    // The lcm clipped to the extent must still be whole write units (or the tail).
    if (aligned[d] % unit[d] != 0 && aligned[d] != shape[d]) aligned[d] = unit[d];
  }
  const std::uint64_t unit_bytes = product(unit) * itemsize;
  const std::uint64_t aligned_bytes = product(aligned) * itemsize;
  threads = std::max(1u, threads);
  copies = std::max(1u, copies);
  // Block sizes are bounded by the array's (checked) byte size, far below 2^64 / copies.
  p.block_shape = aligned_bytes * copies <= memory_budget ? aligned : unit;
  p.block_bytes = product(p.block_shape) * itemsize;
  p.over_budget = unit_bytes * copies > memory_budget;
  p.block_count = 1;
  for (std::size_t d = 0; d < nd; ++d) p.block_count *= ceil_div(shape[d], p.block_shape[d]);
  std::uint64_t fit = p.block_bytes ? memory_budget / (p.block_bytes * copies) : threads;
  p.workers = static_cast<unsigned>(std::clamp<std::uint64_t>(fit, 1, threads));
  p.workers = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(p.workers, p.block_count)));
  return p;
}

unsigned write_copies(const std::vector<CodecSpec>& dst_codecs) {
  const bool sharded = !dst_codecs.empty() && dst_codecs.front().name == "sharding_indexed";
  return sharded ? 3 : 2;
}

Selection BlockPlan::block(std::uint64_t n) const {
  const std::size_t nd = shape.size();
  std::vector<DimSelection> dims(nd);
  for (std::size_t d = nd; d-- > 0;) {
    std::uint64_t g = ceil_div(shape[d], block_shape[d]);
    std::uint64_t i = n % g;
    n /= g;
    std::uint64_t start = i * block_shape[d];
    std::uint64_t stop = std::min(shape[d], start + block_shape[d]);
    dims[d] = DimSelection::slice(static_cast<std::int64_t>(start), static_cast<std::int64_t>(stop));
  }
  return Selection(std::move(dims));
}

std::uint64_t BlockPlan::block_elements(std::uint64_t n) const {
  std::uint64_t e = 1;
  const std::size_t nd = shape.size();
  for (std::size_t d = nd; d-- > 0;) {
    std::uint64_t g = ceil_div(shape[d], block_shape[d]);
    std::uint64_t i = n % g;
    n /= g;
    std::uint64_t start = i * block_shape[d];
    e *= std::min(shape[d], start + block_shape[d]) - start;
  }
  return e;
}

}  // namespace zarrgpu::cli
