#include "codec/bytes_to_bytes/numcodecs/lz4_codec.hpp"

#include <lz4.h>

#include <climits>
#include <cstdint>
#include <cstring>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {
std::uint32_t declared_size(std::span<const std::byte> in, std::string_view codec) {
  if (in.size() < 4)
    throw codec_error(ErrorKind::corrupt_data, codec, "chunk has " + std::to_string(in.size()) + " bytes, too short for its size header");
  std::uint32_t n;
  std::memcpy(&n, in.data(), 4);  // little-endian host
  // LZ4 blocks hold at most LZ4_MAX_INPUT_SIZE (~2 GiB) bytes.
  if (n > LZ4_MAX_INPUT_SIZE)
    throw codec_error(ErrorKind::corrupt_data, codec, "header says " + std::to_string(n) + " bytes, over LZ4's limit");
  return n;
}
}  // namespace

Lz4Codec::Lz4Codec(const CodecSpec& spec, const ChunkRepresentation&) {
  Configuration config(spec);
  const std::int64_t a = config.integer("acceleration", 1);
  if (a < INT_MIN || a > INT_MAX) config.fail("acceleration out of range");
  acceleration_ = static_cast<int>(a);
}

CodecSpec Lz4Codec::spec() const {
  CodecSpec s;
  s.name = "numcodecs.lz4";
  s.configuration = {{"acceleration", acceleration_}};
  return s;
}

void Lz4Codec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const std::uint32_t n = declared_size(in, name());
  if (n != out.size())
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "header says " + std::to_string(n) + " decoded bytes, expected " + std::to_string(out.size()));
  if (in.size() - 4 > static_cast<std::size_t>(INT_MAX))
    throw codec_error(ErrorKind::corrupt_data, name(), "block larger than LZ4 allows");
  const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + 4), reinterpret_cast<char*>(out.data()),
                                      static_cast<int>(in.size() - 4), static_cast<int>(n));
  if (got < 0 || static_cast<std::uint32_t>(got) != n)
    throw codec_error(ErrorKind::corrupt_data, name(), got < 0 ? "malformed LZ4 block" : "LZ4 block shorter than its header says");
}

Bytes Lz4Codec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  const std::uint32_t n = declared_size(in, name());
  Bytes out(expected_size ? expected_size : n);
  decode_into(in, out.span());
  return out;
}

Bytes Lz4Codec::decode_at_most(std::span<const std::byte> in, std::size_t max_size) const {
  const std::uint32_t n = declared_size(in, name());
  if (n > max_size)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "header says " + std::to_string(n) + " decoded bytes, more than the " + std::to_string(max_size) +
                          " the chunk's metadata allows");
  return decode(in, n);
}

std::size_t Lz4Codec::max_encoded_size(std::size_t decoded_size) const {
  // LZ4_COMPRESSBOUND's formula in size_t, plus the 4-byte size header.
  return saturating_add(decoded_size, decoded_size / 255 + 16 + 4);
}

Bytes Lz4Codec::encode(std::span<const std::byte> in) const {
  if (in.size() > LZ4_MAX_INPUT_SIZE)
    throw codec_error(ErrorKind::unsupported, name(), "chunks over LZ4's ~2 GiB limit");
  const int bound = LZ4_compressBound(static_cast<int>(in.size()));
  Bytes out(4 + static_cast<std::size_t>(bound));
  const std::uint32_t n = static_cast<std::uint32_t>(in.size());
  std::memcpy(out.data(), &n, 4);
  const int c = LZ4_compress_fast(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data() + 4),
                                  static_cast<int>(in.size()), bound, acceleration_);
  if (c <= 0 && !in.empty()) throw codec_error(ErrorKind::internal, name(), "LZ4 failed to compress");
  out.resize(4 + static_cast<std::size_t>(c));
  return out;
}

}  // namespace zarrgpu::codec
