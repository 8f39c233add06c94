// Turns a plan into ReadItems with known byte ranges, a window at a time so
// that memory stays bounded by the window, not by the number of chunks:
// plain chunks get their sizes from the store (in parallel); sharded arrays
// (plan.shard_layout()) open a window of shards and read their indexes (in
// parallel), before any inner chunk, and yield the inner chunks the
// selection touches, each holding its open shard. Host code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codec/array_to_bytes/sharding_indexed/sharding_indexed_codec.hpp"
#include "codec/codec.hpp"
#include "engine/device_read/read_item.hpp"
#include "engine/plan.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::engine::device_read {

class ItemSource {
 public:
  // `plan` must outlive the source.
  ItemSource(Store& store, const ArrayMetadata& metadata, std::string array_path, const Plan& plan);

  const codec::CodecChain& chain(std::uint8_t i) const { return i == 0 ? outer_ : sharding_->inner_chain(); }
  bool sharded() const noexcept { return sharding_ != nullptr; }

  // Fills `out` with the next items, about `decoded_budget` decoded bytes
  // (at least one item unless the plan is exhausted). Returns false when done.
  bool next(std::size_t decoded_budget, std::deque<ReadItem>& out);
  // Whether next() may open more shards: the items handed out hold their
  // shards open (a descriptor each), so at most kMaxOpenShards are alive.
  bool can_open_shards();

  static constexpr std::size_t kMaxOpenShards = 256;

 private:
  void next_chunks(std::size_t decoded_budget, std::deque<ReadItem>& out);
  void next_shards(std::size_t decoded_budget, std::deque<ReadItem>& out);
  Error context(const Error& e, const std::string& key) const;

  Store& store_;
  const ArrayMetadata& metadata_;
  std::string array_path_;
  const Plan& plan_;
  codec::CodecChain outer_;
  const codec::ShardingIndexedCodec* sharding_ = nullptr;  // outer_'s, when shards are read partially
  std::vector<std::weak_ptr<const store::StoredValue>> open_;  // shards handed out in items
  std::uint64_t cursor_ = 0;  // next chunk (or shard) of the plan
};

}  // namespace zarrgpu::engine::device_read
