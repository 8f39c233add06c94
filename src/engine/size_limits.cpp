#include "engine/size_limits.hpp"

namespace zarrgpu::engine {

std::optional<std::uint64_t> checked_product(std::span<const std::uint64_t> extents, std::uint64_t factor) {
  std::uint64_t n = factor;
  if (n > kMaxSize) return std::nullopt;
  for (auto e : extents) {
    if (e == 0) return 0;  // an empty extent empties the product, whatever the others
  }
  for (auto e : extents) {
    if (__builtin_mul_overflow(n, e, &n) || n > kMaxSize) return std::nullopt;
  }
  return n;
}

void check_array_sizes(const ArrayMetadata& m, const std::string& path) {
  const ErrorContext ctx{path, "", "", ""};
  const std::uint64_t es = size_of(m.data_type);
  auto too_large = [&](const std::string& what, std::span<const std::uint64_t> extents) {
    std::string s = "[";
    for (std::size_t k = 0; k < extents.size(); ++k) s += (k ? ", " : "") + std::to_string(extents[k]);
    return Error(ErrorKind::invalid_metadata,
                 what + " " + s + "] of " + std::string(v3_name(m.data_type)) + " holds more than 2^63 bytes", ctx);
  };
  if (!checked_product(m.shape, es)) throw too_large("the shape", m.shape);
  if (!checked_product(m.chunk_shape, es)) throw too_large("the chunk shape", m.chunk_shape);
}

}  // namespace zarrgpu::engine
