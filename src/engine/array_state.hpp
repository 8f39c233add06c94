// What the engine builds once per opened array: the codec chains (validated
// at open time, so a bad configuration is reported with the codec's name
// before any chunk is touched), its sharding codec when shards are read
// partially, and the fill element.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "codec/array_to_bytes/sharding_indexed/sharding_indexed_codec.hpp"
#include "codec/codec.hpp"
#include "engine/plan.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::engine {

struct ArrayState {
  explicit ArrayState(codec::CodecChain c) : chain(std::move(c)) {}

  codec::CodecChain chain;  // the array's chain, for whole chunks (or whole shards)
  // Partially readable sharding (partial_shard_layout): the chain's codec,
  // whose layout, inner chain and index format the read paths use; null
  // when shards are read as whole chunks.
  const codec::ShardingIndexedCodec* sharding = nullptr;
  // One element of the fill value, native order (format 2 null -> zeros).
  std::vector<std::byte> fill;
  // False for a format 2 null fill value: no chunk counts as "empty".
  bool has_fill = true;

  const std::byte* fill_element() const noexcept { return fill.data(); }
};

// Throws Error naming the array (and codec) when the chain cannot be built.
std::shared_ptr<const ArrayState> make_array_state(const ArrayMetadata& metadata, const std::string& path);

// The ErrorContext of a chunk of an array in a store.
ErrorContext chunk_context(const std::string& array_path, const std::string& key, const Store& store);

// The codecs that decode the stored chunks, in the metadata's order: the
// chain, or for a sharded array sharding_indexed and the inner chain.
std::vector<std::string> chain_codec_names(const ArrayState& state);

// Reads/writes `ranges` of the array; `out`/`data` is the selection in C order.
// `report` (may be null): what the read did.
void read_selection(Store& store, const std::string& path, const ArrayMetadata& metadata, const ArrayState& state,
                    std::vector<DimRange> ranges, std::span<std::byte> out, const ReadOptions& options,
                    ReadReport* report = nullptr);
void write_selection(Store& store, const std::string& path, const ArrayMetadata& metadata, const ArrayState& state,
                     std::vector<DimRange> ranges, std::span<const std::byte> data, const WriteOptions& options);
// The same for variable-length data types (string, bytes): one value per
// element (src/engine/variable_length.cpp).
std::vector<std::string> read_variable_length_selection(Store& store, const std::string& path,
                                                        const ArrayMetadata& metadata, const ArrayState& state,
                                                        std::vector<DimRange> ranges, const ReadOptions& options);
void write_variable_length_selection(Store& store, const std::string& path, const ArrayMetadata& metadata,
                                     const ArrayState& state, std::vector<DimRange> ranges,
                                     std::span<const std::string> values, const WriteOptions& options);

// Chunks read (or encoded) per batch: enough to keep every thread busy, few
// enough that a batch's bytes stay bounded (~256 MiB of decoded chunks).
std::size_t chunks_per_batch(std::size_t chunk_nbytes, unsigned threads);

}  // namespace zarrgpu::engine
