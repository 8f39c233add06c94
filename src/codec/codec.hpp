// Codec interfaces (Zarr v3 §"Codecs"): array -> array, array -> bytes,
// bytes -> bytes; and the chain that runs them.
//
// A chain is built once per array (and once per shard level), validated up
// front so that a bad configuration is reported at open time with the codec's
// name. Decoding writes into caller-owned memory so the engine can place
// chunks without a copy, and the GPU path can take a codec from the chain and
// run its own implementation instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "zarrgpu/buffer.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/metadata.hpp"

namespace zarrgpu::codec {

// What a codec sees of a chunk: its shape, data type and fill value.
struct ChunkRepresentation {
  std::vector<std::uint64_t> shape;
  DataType data_type = DataType::float32;
  FillValue fill_value;

  std::uint64_t num_elements() const noexcept;
  std::size_t nbytes() const noexcept { return num_elements() * size_of(data_type); }
};

class Codec {
 public:
  virtual ~Codec() = default;
  virtual std::string_view name() const noexcept = 0;
  // The metadata that describes this codec (written back to zarr.json).
  virtual CodecSpec spec() const = 0;
};

class ArrayToArrayCodec : public Codec {
 public:
  // The representation of the encoded array given the decoded one.
  virtual ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const = 0;
  // `in`: the encoded array (C order, native), encoded_representation(decoded).nbytes() bytes;
  // `out`: decoded.nbytes() bytes.
  virtual void decode(std::span<const std::byte> in, std::span<std::byte> out,
                      const ChunkRepresentation& decoded) const = 0;
  virtual void encode(std::span<const std::byte> in, std::span<std::byte> out,
                      const ChunkRepresentation& decoded) const = 0;
};

class ArrayToBytesCodec : public Codec {
 public:
  // `out` has exactly decoded.nbytes() bytes; C order, native byte order.
  virtual void decode(std::span<const std::byte> in, std::span<std::byte> out,
                      const ChunkRepresentation& decoded) const = 0;
  virtual Bytes encode(std::span<const std::byte> in, const ChunkRepresentation& decoded) const = 0;
};

class BytesToBytesCodec : public Codec {
 public:
  // `expected_size`: the decoded size when the chain knows it (0 = unknown);
  // a codec may use it to bound its output and must reject a mismatch.
  virtual Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const = 0;
  virtual Bytes encode(std::span<const std::byte> in) const = 0;
};

class CodecChain {
 public:
  // Validates and instantiates `specs` for chunks of `chunk`. Throws
  // Error(unsupported/invalid_metadata) naming the codec.
  static CodecChain build(std::span<const CodecSpec> specs, const ChunkRepresentation& chunk);

  CodecChain(CodecChain&&) noexcept;
  CodecChain& operator=(CodecChain&&) noexcept;
  ~CodecChain();

  // Decodes one stored chunk into `out` (chunk().nbytes() bytes).
  // Errors carry the codec's name; the caller adds array and chunk key.
  void decode(std::span<const std::byte> stored, std::span<std::byte> out) const;
  Bytes encode(std::span<const std::byte> array) const;

  const ChunkRepresentation& chunk() const noexcept { return chunk_; }
  std::span<const std::unique_ptr<ArrayToArrayCodec>> array_to_array() const noexcept { return a2a_; }
  const ArrayToBytesCodec& array_to_bytes() const noexcept { return *a2b_; }
  std::span<const std::unique_ptr<BytesToBytesCodec>> bytes_to_bytes() const noexcept { return b2b_; }
  // Representation entering each array-to-array codec, and the array-to-bytes one (last).
  std::span<const ChunkRepresentation> representations() const noexcept { return reprs_; }
  std::vector<CodecSpec> specs() const;

 private:
  CodecChain() = default;
  ChunkRepresentation chunk_;
  std::vector<ChunkRepresentation> reprs_;
  std::vector<std::unique_ptr<ArrayToArrayCodec>> a2a_;
  std::unique_ptr<ArrayToBytesCodec> a2b_;
  std::vector<std::unique_ptr<BytesToBytesCodec>> b2b_;
};

// The registry: one explicit dispatch over codec names (no static
// registration, which a static library's linker would drop). Throws
// Error(unsupported) for unknown names with must_understand true.
std::unique_ptr<Codec> make_codec(const CodecSpec& spec, const ChunkRepresentation& input);

}  // namespace zarrgpu::codec
