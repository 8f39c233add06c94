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
  if (const auto& layout = plan.shard_layout()) {
    inner_.emplace(codec::CodecChain::build(layout->inner_codecs, chunk_repr(metadata, layout->inner_chunk_shape)));
    // The index: chunks_per_shard x 2 uint64 (offset, nbytes); sharding spec.
    std::vector<std::uint64_t> shape = layout->chunks_per_shard;
    shape.push_back(2);
    index_.emplace(codec::CodecChain::build(
        layout->index_codecs, codec::ChunkRepresentation{shape, DataType::uint64, FillValue::of(~std::uint64_t{0})}));
    const auto size = index_->encoded_size();
    if (!size) {
      throw Error(ErrorKind::unsupported, "shard index codecs without a fixed size",
                  {array_path_, "", "sharding_indexed", store_.describe()});
    }
    index_bytes_ = *size;
  }
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
  const auto& layout = *plan_.shard_layout();
  const std::size_t inner_bytes = std::max<std::size_t>(inner_->chunk().nbytes(), 1);
  // A window of shards whose touched inner chunks add up to the budget.
  std::vector<ChunkPlan> shards;
  std::vector<std::vector<ChunkPlan>> inner;
  std::size_t planned = 0;
  while (cursor_ < plan_.num_chunks() && (shards.empty() || planned < decoded_budget)) {
    shards.push_back(plan_.chunk(cursor_++));
    inner.push_back(plan_.inner_chunks(shards.back()));
    planned += inner.back().size() * inner_bytes;
  }
  // Their indexes, in parallel. The index's size comes from the metadata; the
  // shard file bounds it: a shard shorter than its index is corrupt, and no
  // index is allocated before one is known to exist.
  std::vector<Bytes> encoded(shards.size());
  std::vector<char> present(shards.size(), 0);
  parallel_for(shards.size(), [&](std::size_t s) {
    try {
      const auto value = store::open_value(store_, shards[s].key);
      if (!value) return;
      if (value->size() < index_bytes_)
        throw Error(ErrorKind::corrupt_data, "shard has " + std::to_string(value->size()) +
                                                 " bytes, less than its " + std::to_string(index_bytes_) +
                                                 "-byte index");
      encoded[s] = Bytes(index_bytes_);
      value->read(layout.index_location == ShardLayout::IndexLocation::end ? value->size() - index_bytes_ : 0,
                  encoded[s].span());
      present[s] = 1;
    } catch (const Error& e) {
      throw e.with_context({array_path_, shards[s].key, "sharding_indexed", store_.describe()});
    }
  });
  const std::uint64_t slots = layout.num_inner_chunks();
  std::vector<std::uint64_t> index;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const bool found = present[s] != 0;
    if (found) {
      index.resize(2 * slots);
      try {
        index_->decode(encoded[s].span(), std::as_writable_bytes(std::span(index)));
      } catch (const Error& e) {
        throw e.with_context({array_path_, shards[s].key, "sharding_indexed", store_.describe()});
      }
    }
    for (ChunkPlan& c : inner[s]) {
      ReadItem it;
      it.key = shards[s].key;
      it.name = inner_name(it.key, c);
      it.chain = 1;
      const std::uint64_t slot = c.linear_index;
      if (!found || slot >= slots || (index[2 * slot] == ~std::uint64_t{0} && index[2 * slot + 1] == ~std::uint64_t{0})) {
        it.missing = true;
      } else {
        it.offset = index[2 * slot];
        it.length = index[2 * slot + 1];
        if (it.offset > ~std::uint64_t{0} - it.length) {
          throw Error(ErrorKind::corrupt_data, "shard index entry overflows (offset " + std::to_string(it.offset) + ")",
                      {array_path_, it.name, "sharding_indexed", store_.describe()});
        }
      }
      it.chunk = std::move(c);
      out.push_back(std::move(it));
    }
  }
}

}  // namespace zarrgpu::engine::device_read
