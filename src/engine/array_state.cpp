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
    st->shard_layout = partial_shard_layout(m, path);
    if (st->shard_layout) {
      const auto& L = *st->shard_layout;
      st->inner_chain = codec::CodecChain::build(L.inner_codecs, {L.inner_chunk_shape, m.data_type, m.fill_value});
      std::vector<std::uint64_t> index_shape = L.chunks_per_shard;
      index_shape.push_back(2);
      st->index_chain = codec::CodecChain::build(L.index_codecs, {index_shape, DataType::uint64, FillValue{}});
      // Index codecs have a fixed encoded size (sharding spec: only fixed-size
      // codecs are allowed there), computed without building an index: its
      // decoded size comes from the metadata alone and may be large.
      const std::optional<std::size_t> index_size = st->index_chain->encoded_size();
      if (!index_size)
        throw Error(ErrorKind::unsupported,
                    "index_codecs must encode to a fixed size (bytes, optionally crc32c), so the index can be found",
                    {path, "", "sharding_indexed", ""});
      st->index_encoded_size = *index_size;
    }
    return st;
  } catch (const Error& e) {
    throw e.with_context(ctx);
  }
}

}  // namespace zarrgpu::engine
