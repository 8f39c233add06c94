// Codec interfaces (Zarr v3 §"Codecs"): array -> array, array -> bytes,
// bytes -> bytes; and the chain that runs them.
//
// A chain is built once per array (and once per shard level), validated up
// front so that a bad configuration is reported at open time with the codec's
// name. Decoding writes into caller-owned memory so the engine can place
// chunks without a copy. A codec may also offer a device form (decoding on
// the GPU, device_decoder.hpp); the device read path asks the codec for it,
// and decodes the codecs that have none on CPU threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "codec/device_decoder.hpp"
#include "zarrgpu/buffer.hpp"
#include "zarrgpu/error.hpp"
#include "metadata/metadata.hpp"

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

  // Device forms (device_decoder.hpp). When decoding only reorders axes
  // (transpose): the strides of the decoded axes, in elements of the encoded
  // array whose axes have strides `encoded`, so the device reads the encoded
  // array through them and moves nothing. nullopt for codecs that move data.
  virtual std::optional<std::vector<std::int64_t>> decoded_strides(std::span<const std::int64_t> /*encoded*/) const {
    return std::nullopt;
  }
  // The in-place batched device decode of chunks of `decoded`, or nullptr
  // (this configuration decodes on CPU threads).
  virtual const DeviceArrayStep* device_step(const ChunkRepresentation& /*decoded*/) const { return nullptr; }
};

class ArrayToBytesCodec : public Codec {
 public:
  // `out` has exactly decoded.nbytes() bytes; C order, native byte order.
  virtual void decode(std::span<const std::byte> in, std::span<std::byte> out,
                      const ChunkRepresentation& decoded) const = 0;
  virtual Bytes encode(std::span<const std::byte> in, const ChunkRepresentation& decoded) const = 0;

  // The encoded size when the representation alone fixes it (`bytes`: nbytes);
  // nullopt when it depends on the data (`sharding_indexed`).
  virtual std::optional<std::size_t> encoded_size(const ChunkRepresentation& /*decoded*/) const {
    return std::nullopt;
  }
  // The most the encoding can take, when the representation bounds it (`bytes`:
  // nbytes; `sharding_indexed`: its index plus every inner chunk's bound);
  // nullopt when nothing bounds it. Bounds what a compressor after this codec
  // may decode to.
  virtual std::optional<std::size_t> max_encoded_size(const ChunkRepresentation& decoded) const {
    return encoded_size(decoded);
  }
  // True when decoding is a plain copy of `in` (native byte order), so a chain
  // may let its innermost bytes-to-bytes codec decode straight into the output.
  virtual bool decode_is_copy(const ChunkRepresentation& /*decoded*/) const noexcept { return false; }
  // Device form: when decoding is a copy that byte-swaps each component
  // (`bytes`), the swapped unit in bytes (0: a plain copy), which the device
  // folds into placement; nullopt when the codec decodes on CPU threads only.
  virtual std::optional<unsigned> device_swap(const ChunkRepresentation& /*decoded*/) const { return std::nullopt; }
};

class BytesToBytesCodec : public Codec {
 public:
  // `expected_size`: the decoded size when the chain knows it (0 = unknown);
  // a codec may use it to bound its output and must reject a mismatch.
  virtual Bytes decode(std::span<const std::byte> in, std::size_t expected_size) const = 0;
  virtual Bytes encode(std::span<const std::byte> in) const = 0;

  // Decodes into exactly out.size() bytes (the expected size); throws
  // corrupt_data on any other size. The default decodes, then copies; codecs
  // that can write in place (zstd, gzip, blosc, lz4) override it.
  virtual void decode_into(std::span<const std::byte> in, std::span<std::byte> out) const;
  // The encoded size when the decoded size alone fixes it (crc32c: +4);
  // nullopt for compressors.
  virtual std::optional<std::size_t> encoded_size(std::size_t /*decoded_size*/) const {
    return std::nullopt;
  }

  // Decodes where the chain knows only a bound on the decoded size (this codec
  // follows another compressor, whose input cannot sensibly exceed what its
  // own decoded size allows): returns at most `max_size` bytes and never
  // allocates much more; Error(corrupt_data) when the data decodes to more.
  // The default decodes with the size unknown, then checks: right for codecs
  // whose input already bounds their output (crc32c, shuffle).
  virtual Bytes decode_at_most(std::span<const std::byte> in, std::size_t max_size) const;
  // The most `decoded_size` bytes may encode to: the encoded size where fixed,
  // else the compressor's worst-case expansion (with room for any header), so
  // the chain can bound what the codec before this one decodes to. Saturates.
  virtual std::size_t max_encoded_size(std::size_t decoded_size) const;

  // Device forms (device_decoder.hpp), nullptr when the codec decodes on CPU
  // threads only: a compressor's batched decoder, or a size-keeping step.
  virtual const BatchedDeviceDecoder* device_decoder() const { return nullptr; }
  virtual const DeviceBytesStep* device_step() const { return nullptr; }
};

// a + b, or SIZE_MAX when that overflows: size bounds saturate.
inline std::size_t saturating_add(std::size_t a, std::size_t b) noexcept {
  std::size_t r;
  return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

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
  // The size of every encoded chunk when the codecs fix it (a shard index
  // through bytes + crc32c: 16 n + 4); nullopt for compressed chains.
  std::optional<std::size_t> encoded_size() const;
  // The most an encoded chunk may take (every codec's worst-case expansion);
  // nullopt when nothing bounds it.
  std::optional<std::size_t> max_encoded_size() const;

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
// Error(unsupported) for unknown names: every codec changes the stored bytes,
// so none can be skipped, whatever must_understand says.
// `input` is the representation entering the codec; bytes-to-bytes codecs get
// the one entering the array-to-bytes codec (blosc takes its default typesize
// from it).
std::unique_ptr<Codec> make_codec(const CodecSpec& spec, const ChunkRepresentation& input);

// A codec entry of zarr.json: {"name": ..., "configuration": {...}} or the
// short form "name" (Zarr v3 §"Extension definition"). Throws invalid_metadata.
CodecSpec codec_spec_from_json(const json& j);
json codec_spec_to_json(const CodecSpec& spec);

}  // namespace zarrgpu::codec
