#include "codec/array_to_array/transpose/transpose_codec.hpp"

#include <string>

#include "codec/array_to_array/transpose/permute_axes.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

TransposeCodec::TransposeCodec(const CodecSpec& spec, const ChunkRepresentation& input) {
  Configuration config(spec);
  const std::size_t n = input.shape.size();
  const json& order = config.at("order");
  if (order.is_string()) {
    // Early v3 drafts (and zarr-python 2's v3 preview) wrote "C" or "F".
    const std::string o = order.get<std::string>();
    if (o != "C" && o != "F") config.fail("order must be a permutation, got \"" + o + "\"");
    for (std::size_t k = 0; k < n; ++k) order_.push_back(o == "C" ? k : n - 1 - k);
  } else {
    if (!order.is_array()) config.fail("order must be an array of axes, got " + order.dump());
    for (const json& v : order) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
        config.fail("order must hold axis numbers, got " + order.dump());
      order_.push_back(v.get<std::size_t>());
    }
  }
  if (order_.size() != n)
    config.fail("order has " + std::to_string(order_.size()) + " axes, the array " + std::to_string(n));
  inverse_.assign(n, n);
  for (std::size_t k = 0; k < n; ++k) {
    if (order_[k] >= n || inverse_[order_[k]] != n)
      config.fail("order " + order.dump() + " is not a permutation of 0.." + std::to_string(n - 1));
    inverse_[order_[k]] = k;
  }
}

CodecSpec TransposeCodec::spec() const {
  CodecSpec s;
  s.name = "transpose";
  s.configuration["order"] = order_;
  return s;
}

ChunkRepresentation TransposeCodec::encoded_representation(const ChunkRepresentation& decoded) const {
  ChunkRepresentation e = decoded;
  for (std::size_t k = 0; k < order_.size(); ++k) e.shape[k] = decoded.shape[order_[k]];
  return e;
}

void TransposeCodec::encode(std::span<const std::byte> in, std::span<std::byte> out,
                            const ChunkRepresentation& decoded) const {
  permute_axes(in, out, decoded.shape, order_, size_of(decoded.data_type));
}

void TransposeCodec::decode(std::span<const std::byte> in, std::span<std::byte> out,
                            const ChunkRepresentation& decoded) const {
  const ChunkRepresentation e = encoded_representation(decoded);
  permute_axes(in, out, e.shape, inverse_, size_of(decoded.data_type));
}

std::optional<std::vector<std::int64_t>> TransposeCodec::decoded_strides(std::span<const std::int64_t> encoded) const {
  if (encoded.size() != order_.size()) return std::nullopt;
  std::vector<std::int64_t> decoded(encoded.size());
  for (std::size_t k = 0; k < order_.size(); ++k) decoded[order_[k]] = encoded[k];
  return decoded;
}

}  // namespace zarrgpu::codec
