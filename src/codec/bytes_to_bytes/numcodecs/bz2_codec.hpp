// `numcodecs.bz2`: bzip2 streams through libbzip2, as Python's bz2.compress
// writes them (numcodecs.BZ2); decoding, like bz2.decompress, reads streams
// one after another.
#pragma once

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class Bz2Codec final : public BytesToBytesCodec {
 public:
  Bz2Codec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.bz2"; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  Bytes decode_at_most(std::span<const std::byte> in, std::size_t max_size) const override;
  std::size_t max_encoded_size(std::size_t decoded_size) const override;
  Bytes encode(std::span<const std::byte> in) const override;

 private:
  // Only encoding uses the level (bzip2's block size in 100 kB, 1..9); any
  // integer is read, and an encoder-rejected one is reported when encoding.
  std::int64_t level_ = 1;
};

}  // namespace zarrgpu::codec
