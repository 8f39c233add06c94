// `numcodecs.lzma`: Python's lzma module over liblzma (numcodecs.LZMA), with
// its configuration: `format` (0 auto, 1 xz, 2 legacy .lzma "alone", 3 raw),
// `check` (-1: the format's default, CRC-64 for xz), `preset` (null: 6) and
// `filters` (null, or a filter chain as Python's lzma takes it: dicts with
// "id" and options). Filter chains of delta and LZMA1/LZMA2 filters are
// supported; other filters (the BCJ branch converters) are Error(unsupported).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class LzmaCodec final : public BytesToBytesCodec {
 public:
  LzmaCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return "numcodecs.lzma"; }
  CodecSpec spec() const override;
  Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const override;
  Bytes decode_at_most(std::span<const std::byte> in, std::size_t max_size) const override;
  std::size_t max_encoded_size(std::size_t decoded_size) const override;
  Bytes encode(std::span<const std::byte> in) const override;

  // One filter of the chain, as its options are written.
  struct Filter {
    std::uint64_t id = 0;
    std::uint32_t preset = 6;
    std::optional<std::int64_t> dict_size, lc, lp, pb, mode, nice_len, mf, depth;  // LZMA1/LZMA2
    std::uint32_t dist = 1;                                                         // delta
  };

 private:
  json configuration_;  // as written, for spec()
  int format_ = 1;
  std::int64_t check_ = -1;
  std::optional<std::int64_t> preset_;
  std::optional<std::vector<Filter>> filters_;
};

}  // namespace zarrgpu::codec
