#include "engine/device_read/item_source.hpp"

#include <cstring>

#include "engine/thread_pool.hpp"
#include "store/stored_value.hpp"

namespace zarrgpu::engine::device_read {
namespace {

codec::ChunkRepresentation chunk_repr(const ArrayMetadata& m, std::vector<std::uint64_t> shape) {
  return codec::ChunkRepresentation{std::move(shape), m.data_type, m.fill_value};
}

std::string inner_name(const std::string& shard_key, const ChunkPlan& inner) {
  std::string s = shard_key + "[";
  for (std::size_t d = 0; d < inner.coords.size(); ++d) {
    if (d) s += ",";
    s += std::to_string(inner.coords[d]);
  }
  return s + "]";
}

}  // namespace

ItemSource::ItemSource(Store& store, const ArrayMetadata& metadata, std::string array_path, const Plan& plan)
    : store_(store),
      metadata_(metadata),
      array_path_(std::move(array_path)),
      plan_(plan),
      outer_(codec::CodecChain::build(metadata.codecs, chunk_repr(metadata, metadata.chunk_shape))) {
  if (plan.shard_layout()) sharding_ = dynamic_cast<const codec::ShardingIndexedCodec*>(&outer_.array_to_bytes());
}

bool ItemSource::can_open_shards() {
  std::erase_if(open_, [](const auto& v) { return v.expired(); });
  return open_.size() < kMaxOpenShards;
}

Error ItemSource::context(const Error& e, const std::string& key) const {
  return e.with_context({array_path_, key, "", store_.describe()});
}

bool ItemSource::next(std::size_t decoded_budget, std::deque<ReadItem>& out) {
  if (cursor_ >= plan_.num_chunks()) return false;
  if (sharded()) next_shards(decoded_budget, out);
  else next_chunks(decoded_budget, out);
  return true;
}

void ItemSource::next_chunks(std::size_t decoded_budget, std::deque<ReadItem>& out) {
  const std::size_t per_chunk = std::max<std::size_t>(outer_.chunk().nbytes(), 1);
  const std::uint64_t n = std::min<std::uint64_t>(plan_.num_chunks() - cursor_,
                                                  std::max<std::size_t>(decoded_budget / per_chunk, 1));
  std::vector<ReadItem> items(n);
  parallel_for(n, [&](std::size_t i) {
    ReadItem& it = items[i];
    it.chunk = plan_.chunk(cursor_ + i);
    it.key = it.chunk.key;
    it.name = it.key;
    try {
      const auto size = store_.size(it.key);
      it.missing = !size.has_value();
      it.length = size.value_or(0);
    } catch (const Error& e) {
      throw context(e, it.key);
    }
  });
  cursor_ += n;
  for (auto& it : items) out.push_back(std::move(it));
}

void ItemSource::next_shards(std::size_t decoded_budget, std::deque<ReadItem>& out) {
  const std::size_t inner_bytes = std::max<std::size_t>(sharding_->inner_chain().chunk().nbytes(), 1);
  can_open_shards();  // forget the shards no item holds any more
  // A window of shards whose touched inner chunks add up to the budget.
  std::vector<ChunkPlan> shards;
  std::vector<std::vector<ChunkPlan>> inner;
  std::size_t planned = 0;
  while (cursor_ < plan_.num_chunks() &&
         (shards.empty() || (planned < decoded_budget && open_.size() + shards.size() < kMaxOpenShards))) {
    shards.push_back(plan_.chunk(cursor_++));
    inner.push_back(plan_.inner_chunks(shards.back()));
    planned += inner.back().size() * inner_bytes;
  }
  // Each shard is opened once and its index read from it (shard_index.hpp:
  // bounded by the shard's size and validated), in parallel; its inner
  // chunks are read from that open value later.
  const codec::ShardIndexFormat& format = sharding_->index_format();
  std::vector<std::shared_ptr<const store::StoredValue>> values(shards.size());
  std::vector<std::vector<ReadItem>> items(shards.size());
  parallel_for(shards.size(), [&](std::size_t s) {
    codec::ShardIndex index;
    try {
      values[s] = store::open_value(store_, shards[s].key);
      if (values[s]) {
        const store::StoredValue& v = *values[s];
        index = format.read(v.size(), [&](std::uint64_t at, std::span<std::byte> dest) { v.read(at, dest); });
      }
    } catch (const Error& e) {
      throw e.with_context({array_path_, shards[s].key, "sharding_indexed", store_.describe()});
    }
    for (ChunkPlan& c : inner[s]) {
      ReadItem it;
      it.key = shards[s].key;
      it.name = inner_name(it.key, c);
      it.chain = 1;
      if (values[s]) {
        const codec::InnerChunkRange range = index.range(std::size_t(c.linear_index));
        it.missing = range.missing;
        it.offset = range.offset;
        it.length = range.nbytes;
        if (!it.missing) it.shard = values[s];
      } else {
        it.missing = true;
      }
      it.chunk = std::move(c);
      items[s].push_back(std::move(it));
    }
  });
  for (std::size_t s = 0; s < shards.size(); ++s) {
    if (values[s]) open_.push_back(values[s]);
    for (ReadItem& it : items[s]) out.push_back(std::move(it));
  }
}

}  // namespace zarrgpu::engine::device_read
