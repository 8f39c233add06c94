// `vlen-utf8` and `vlen-bytes` (numcodecs VLenUTF8 / VLenBytes; zarr-python 3
// uses them as array -> bytes codecs of the string and bytes data types, and
// format 2 "|O" arrays name them as their first filter). The encoded chunk:
//   u32 LE item count, then per item (C order) u32 LE byte length + the bytes
// (numcodecs/vlen.pyx). Elements have no fixed size, so the codec decodes to
// and encodes from a list of values rather than the fixed-size array buffer
// of ArrayToBytesCodec; the engine's variable-length path
// (src/engine/variable_length.cpp) calls these.
#pragma once

#include <string>
#include <vector>

#include "codec/codec.hpp"

namespace zarrgpu::codec {

class VariableLengthCodec final : public ArrayToBytesCodec {
 public:
  VariableLengthCodec(const CodecSpec& spec, const ChunkRepresentation& input);

  std::string_view name() const noexcept override { return name_; }
  CodecSpec spec() const override;
  // The fixed-size interface does not apply: throws Error(internal).
  void decode(std::span<const std::byte> in, std::span<std::byte> out,
              const ChunkRepresentation& decoded) const override;
  Bytes encode(std::span<const std::byte> in, const ChunkRepresentation& decoded) const override;

  // The `count` items of an encoded chunk. Throws corrupt_data when the header
  // disagrees with `count` or a length runs past the end.
  std::vector<std::string> decode_items(std::span<const std::byte> in, std::uint64_t count) const;
  Bytes encode_items(std::span<const std::string> items) const;

 private:
  std::string name_;
};

}  // namespace zarrgpu::codec
