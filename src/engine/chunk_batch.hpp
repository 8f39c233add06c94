// Decodes and encodes batches of whole chunks whose bytes the caller already
// holds: the seam for codec pipelines that fetch chunks through their own
// stores (zarr-python's CodecPipeline, python/zarrgpu/zarr). The chain comes
// from a one-chunk array document, so format 2 compressors/filters/order and
// format 3 codecs are validated exactly as when zarrgpu opens an array.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <cstdint>
#include <memory>

#include "codec/codec.hpp"
#include "engine/array_state.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/buffer.hpp"

namespace zarrgpu::engine {

class ChunkBatchCodec {
 public:
  // `document`: a format 3 zarr.json or a format 2 .zarray whose shape is the
  // chunk's shape (the chunk grid is then that one chunk). `name`: the array
  // the chunks belong to, for error messages. Throws Error(invalid_metadata /
  // unsupported) naming the codec, like opening an array does. Variable-length
  // data types are refused (Error(unsupported)): their chunks are not fixed-size.
  static ChunkBatchCodec from_document(const json& document, std::string name);

  const codec::CodecChain& chain() const noexcept { return state_->chain; }
  const ArrayMetadata& metadata() const noexcept { return metadata_; }
  // The decoded size of one chunk (C order, native byte order).
  std::size_t chunk_bytes() const noexcept { return state_->chain.chunk().nbytes(); }

  // Decodes in[i] into out[i] (chunk_bytes() each) on up to `threads` threads
  // (0: the shared pool's size). `keys[i]` names chunk i in errors (may be
  // empty). The first failing chunk's Error is thrown, with its key and codec.
  void decode(std::span<const std::span<const std::byte>> in, std::span<const std::span<std::byte>> out,
              std::span<const std::string> keys, unsigned threads = 0) const;
  // Encodes chunk_bytes()-sized arrays (C order, native byte order).
  std::vector<Bytes> encode(std::span<const std::span<const std::byte>> in, std::span<const std::string> keys,
                            unsigned threads = 0) const;

  // What a GPU can decode of this chain without the CPU: the stored bytes are
  // one zstd frame whose content is the chunk in native order (codecs "bytes"
  // little-endian, then "zstd"; format 2: compressor zstd, no filters, order C),
  // or the chunk itself (format 3 "bytes" alone). nullopt otherwise.
  enum class DeviceForm { zstd, copy };
  std::optional<DeviceForm> device_form() const noexcept { return device_form_; }

 private:
  ChunkBatchCodec(ArrayMetadata m, std::shared_ptr<const ArrayState> s, std::string name)
      : metadata_(std::move(m)), state_(std::move(s)), name_(std::move(name)) {}
  ErrorContext context(std::span<const std::string> keys, std::size_t i) const;

  ArrayMetadata metadata_;
  std::shared_ptr<const ArrayState> state_;
  std::string name_;
  std::optional<DeviceForm> device_form_;
};

// Decodes n zstd frames held in device memory into device buffers of the
// given sizes with zarrgpu's batched GPU decoder, on `stream` (0: legacy
// default stream), and waits for it. Each frame must decode to exactly
// out_sizes[i] bytes: anything else is Error(corrupt_data) naming keys[i].
// Error(unsupported) in a build without CUDA or without the GPU decoder.
void decode_zstd_on_device(int device, std::span<const void* const> in_ptrs, std::span<const std::size_t> in_sizes,
                           std::span<void* const> out_ptrs, std::span<const std::size_t> out_sizes,
                           std::span<const std::string> keys, std::uintptr_t stream);

}  // namespace zarrgpu::engine
