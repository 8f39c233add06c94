// Format-independent parts of ArrayMetadata.
#include "metadata/metadata.hpp"

namespace zarrgpu {

std::uint64_t ArrayMetadata::num_elements() const noexcept {
  // The parsers reject shapes whose product overflows, so this cannot wrap
  // for parsed metadata.
  std::uint64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

std::vector<std::uint64_t> ArrayMetadata::grid_shape() const {
  std::vector<std::uint64_t> g(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::uint64_t c = i < chunk_shape.size() ? chunk_shape[i] : 0;
    // ceil without overflow; a zero chunk extent only exists in metadata built by hand
    g[i] = c == 0 ? 0 : shape[i] / c + (shape[i] % c != 0);
  }
  return g;
}

}  // namespace zarrgpu
