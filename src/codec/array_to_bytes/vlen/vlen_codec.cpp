#include "codec/array_to_bytes/vlen/vlen_codec.hpp"

#include <cstring>
#include <limits>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

std::uint32_t load_u32(const std::byte* p) noexcept {
  std::uint32_t v = 0;
  std::memcpy(&v, p, 4);  // little-endian host (data_type.hpp)
  return v;
}

void store_u32(std::byte* p, std::uint32_t v) noexcept { std::memcpy(p, &v, 4); }

}  // namespace

VariableLengthCodec::VariableLengthCodec(const CodecSpec& spec, const ChunkRepresentation& input) : name_(spec.name) {
  Configuration config(spec);
  (void)config;
  if (!spec.configuration.empty()) config.fail("takes no configuration");
  const DataType want = name_ == "vlen-utf8" ? DataType::string : DataType::bytes;
  if (input.data_type != want)
    throw codec_error(ErrorKind::invalid_metadata, name_,
                      "encodes data type " + std::string(v3_name(want)) + ", the array has " +
                          describe(input.data_type));
}

CodecSpec VariableLengthCodec::spec() const { return {name_, json::object()}; }

void VariableLengthCodec::decode(std::span<const std::byte>, std::span<std::byte>, const ChunkRepresentation&) const {
  throw codec_error(ErrorKind::internal, name_, "variable-length elements are decoded with decode_items");
}

Bytes VariableLengthCodec::encode(std::span<const std::byte>, const ChunkRepresentation&) const {
  throw codec_error(ErrorKind::internal, name_, "variable-length elements are encoded with encode_items");
}

std::vector<std::string> VariableLengthCodec::decode_items(std::span<const std::byte> in, std::uint64_t count) const {
  if (in.size() < 4)
    throw codec_error(ErrorKind::corrupt_data, name_,
                      "chunk has " + std::to_string(in.size()) + " bytes, shorter than the 4-byte item count");
  const std::uint32_t n = load_u32(in.data());
  if (n != count)
    throw codec_error(ErrorKind::corrupt_data, name_,
                      "chunk holds " + std::to_string(n) + " items, the chunk shape has " + std::to_string(count));
  // Every item takes at least its 4-byte length: bounds the allocation by the input.
  if (std::uint64_t{n} * 4 > in.size() - 4)
    throw codec_error(ErrorKind::corrupt_data, name_,
                      "chunk of " + std::to_string(in.size()) + " bytes cannot hold " + std::to_string(n) + " items");
  std::vector<std::string> items(n);
  std::size_t at = 4;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (in.size() - at < 4)
      throw codec_error(ErrorKind::corrupt_data, name_, "item " + std::to_string(i) + "'s length runs past the chunk");
    const std::uint32_t len = load_u32(in.data() + at);
    at += 4;
    if (in.size() - at < len)
      throw codec_error(ErrorKind::corrupt_data, name_,
                        "item " + std::to_string(i) + " of " + std::to_string(len) + " bytes runs past the chunk");
    items[i].assign(reinterpret_cast<const char*>(in.data() + at), len);
    at += len;
  }
  if (at != in.size())
    throw codec_error(ErrorKind::corrupt_data, name_,
                      std::to_string(in.size() - at) + " bytes follow the last item");
  return items;
}

Bytes VariableLengthCodec::encode_items(std::span<const std::string> items) const {
  if (items.size() > std::numeric_limits<std::uint32_t>::max())
    throw codec_error(ErrorKind::invalid_argument, name_, "a chunk holds at most 2^32 - 1 items");
  std::size_t total = 4;
  for (const auto& s : items) {
    if (s.size() > std::numeric_limits<std::uint32_t>::max())
      throw codec_error(ErrorKind::invalid_argument, name_, "an item holds at most 2^32 - 1 bytes");
    total += 4 + s.size();
  }
  Bytes out(total);
  store_u32(out.data(), static_cast<std::uint32_t>(items.size()));
  std::size_t at = 4;
  for (const auto& s : items) {
    store_u32(out.data() + at, static_cast<std::uint32_t>(s.size()));
    at += 4;
    if (!s.empty()) std::memcpy(out.data() + at, s.data(), s.size());
    at += s.size();
  }
  return out;
}

}  // namespace zarrgpu::codec
