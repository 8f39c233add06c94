// ChunkBatchCodec: whole-chunk batches for callers holding the bytes
// (python/zarrgpu/zarr's CodecPipeline). See chunk_batch.hpp.
#include "engine/chunk_batch.hpp"

#include <variant>

#include "codec/array_to_bytes/bytes/bytes_codec.hpp"
#include "engine/size_limits.hpp"
#include "engine/thread_pool.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::engine {

namespace {

std::optional<ChunkBatchCodec::DeviceForm> device_form_of(const codec::CodecChain& chain) {
  if (!chain.array_to_array().empty()) return std::nullopt;
  const auto* bytes = dynamic_cast<const codec::BytesCodec*>(&chain.array_to_bytes());
  if (bytes == nullptr || !bytes->decode_is_copy(chain.representations().back())) return std::nullopt;
  const auto b2b = chain.bytes_to_bytes();
  if (b2b.empty()) return ChunkBatchCodec::DeviceForm::copy;
  if (b2b.size() == 1 && b2b[0]->name() == "zstd") return ChunkBatchCodec::DeviceForm::zstd;
  return std::nullopt;
}

void check_sizes(std::size_t a, std::size_t b, std::size_t keys, const char* what) {
  if (a != b || (keys != 0 && keys != a))
    throw Error(ErrorKind::invalid_argument, std::string(what) + ": " + std::to_string(a) + " inputs, " +
                                                 std::to_string(b) + " outputs and " + std::to_string(keys) +
                                                 " keys (give as many of each, or no keys)");
}

}  // namespace

ChunkBatchCodec ChunkBatchCodec::from_document(const json& document, std::string name) {
  const ErrorContext where{name, "", "", ""};
  ArrayMetadata m;
  try {
    if (document.is_object() && document.contains("zarr_format") && document["zarr_format"] == 2) {
      m = parse_zarray(document, nullptr, name);
    } else {
      NodeMetadata node = parse_zarr_json(document, name);
      if (!std::holds_alternative<ArrayMetadata>(node))
        throw Error(ErrorKind::invalid_argument, "the document describes a group, not an array");
      m = std::get<ArrayMetadata>(std::move(node));
    }
  } catch (const Error& e) {
    throw e.with_context(where);
  }
  if (is_variable_length(m.data_type))
    throw Error(ErrorKind::unsupported,
                "data type " + describe(m.data_type) + " has variable-length elements; batches take fixed-size chunks",
                where);
  check_array_sizes(m, name);
  auto state = make_array_state(m, name);
  ChunkBatchCodec batch(std::move(m), std::move(state), std::move(name));
  batch.device_form_ = device_form_of(batch.chain());
  return batch;
}

ErrorContext ChunkBatchCodec::context(std::span<const std::string> keys, std::size_t i) const {
  ErrorContext c{name_, "", "", ""};
  c.chunk_key = i < keys.size() ? keys[i] : "chunk " + std::to_string(i) + " of the batch";
  return c;
}

void ChunkBatchCodec::decode(std::span<const std::span<const std::byte>> in, std::span<const std::span<std::byte>> out,
                             std::span<const std::string> keys, unsigned threads) const {
  check_sizes(in.size(), out.size(), keys.size(), "decode");
  const std::size_t want = chunk_bytes();
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i].size() != want)
      throw Error(ErrorKind::invalid_argument,
                  "output buffer of " + std::to_string(out[i].size()) + " bytes; a decoded chunk has " +
                      std::to_string(want),
                  context(keys, i));
  parallel_for(
      in.size(),
      [&](std::size_t i) {
        try {
          chain().decode(in[i], out[i]);
        } catch (const Error& e) {
          throw e.with_context(context(keys, i));
        }
      },
      threads);
}

std::vector<Bytes> ChunkBatchCodec::encode(std::span<const std::span<const std::byte>> in,
                                           std::span<const std::string> keys, unsigned threads) const {
  check_sizes(in.size(), in.size(), keys.size(), "encode");
  const std::size_t want = chunk_bytes();
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i].size() != want)
      throw Error(ErrorKind::invalid_argument,
                  "input of " + std::to_string(in[i].size()) + " bytes; a chunk has " + std::to_string(want),
                  context(keys, i));
  std::vector<Bytes> result(in.size());
  parallel_for(
      in.size(),
      [&](std::size_t i) {
        try {
          result[i] = chain().encode(in[i]);
        } catch (const Error& e) {
          throw e.with_context(context(keys, i));
        }
      },
      threads);
  return result;
}

}  // namespace zarrgpu::engine

#if !defined(ZARRGPU_HAVE_CUDA)
namespace zarrgpu::engine {
// Built without CUDA: device_read/chunk_batch_device.cpp is not compiled.
void decode_zstd_on_device(int, std::span<const void* const>, std::span<const std::size_t>, std::span<void* const>,
                           std::span<const std::size_t>, std::span<const std::string>, std::uintptr_t) {
  throw Error(ErrorKind::unsupported, "zarrgpu was built without CUDA: no GPU decoding", {"", "", "zstd", ""});
}
}  // namespace zarrgpu::engine
#endif
