#include "engine/array_state.hpp"

#include <algorithm>
#include <vector>

#include "engine/thread_pool.hpp"

namespace zarrgpu::engine {

ErrorContext chunk_context(const std::string& array_path, const std::string& key, const Store& store) {
  return ErrorContext{array_path, key, "", store.describe()};
}

std::size_t chunks_per_batch(std::size_t chunk_nbytes, unsigned threads) {
  if (threads == 0) threads = ThreadPool::shared().size();
  constexpr std::size_t budget = std::size_t(256) << 20;
  const std::size_t by_bytes = std::max<std::size_t>(1, budget / std::max<std::size_t>(chunk_nbytes, 1));
  const std::size_t wanted = std::max<std::size_t>(64, std::size_t(threads) * 8);
  return std::max<std::size_t>(std::min(wanted, by_bytes), std::min<std::size_t>(threads, wanted));
}

std::shared_ptr<const ArrayState> make_array_state(const ArrayMetadata& m, const std::string& path) {
  const ErrorContext ctx{path, "", "", ""};
  try {
    codec::ChunkRepresentation chunk{m.chunk_shape, m.data_type, m.fill_value};
    auto st = std::make_shared<ArrayState>(codec::CodecChain::build(m.codecs, chunk));
    std::copy_n(m.fill_value.bytes.begin(), size_of(m.data_type), st->fill.begin());
    if (m.fill_value.is_null) {
      st->fill = {};
      st->has_fill = false;
    }
    // The layout the plan reads (partial_shard_layout) is the codec's.
    if (partial_shard_layout(m, path))
      st->sharding = dynamic_cast<const codec::ShardingIndexedCodec*>(&st->chain.array_to_bytes());
    return st;
  } catch (const Error& e) {
    throw e.with_context(ctx);
  }
}

}  // namespace zarrgpu::engine
