#include "engine/array_state.hpp"

#include <algorithm>
#include <vector>

#include "codec/array_to_bytes/vlen/vlen_codec.hpp"
#include "codec/configuration.hpp"
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

namespace {

// What the variable-length path (variable_length.cpp) runs: the vlen codec
// as the array -> bytes codec, with no array -> array codec before it.
void check_variable_length_chain(const codec::CodecChain& chain, DataType t) {
  const auto& a2b = chain.array_to_bytes();
  if (dynamic_cast<const codec::VariableLengthCodec*>(&a2b) == nullptr)
    throw codec::codec_error(ErrorKind::unsupported, a2b.name(),
                             "data type " + describe(t) + " is stored with the vlen-utf8 or vlen-bytes codec, not '" +
                                 std::string(a2b.name()) + "' (sharded variable-length arrays are not supported)");
  if (!chain.array_to_array().empty())
    throw codec::codec_error(ErrorKind::unsupported, chain.array_to_array()[0]->name(),
                             "array -> array codecs (format 2: order \"F\") before a variable-length codec are "
                             "not supported");
}

}  // namespace

std::shared_ptr<const ArrayState> make_array_state(const ArrayMetadata& m, const std::string& path) {
  const ErrorContext ctx{path, "", "", ""};
  try {
    codec::ChunkRepresentation chunk{m.chunk_shape, m.data_type, m.fill_value};
    auto st = std::make_shared<ArrayState>(codec::CodecChain::build(m.codecs, chunk));
    if (is_variable_length(m.data_type)) check_variable_length_chain(st->chain, m.data_type);
    // Fixed-size types: one element; variable-length ones: the value's bytes.
    const std::size_t fill_size = is_variable_length(m.data_type) ? m.fill_value.bytes.size() : size_of(m.data_type);
    st->fill.assign(fill_size, std::byte{0});
    std::copy_n(m.fill_value.bytes.begin(), std::min(fill_size, m.fill_value.bytes.size()), st->fill.begin());
    // A format 2 null: the type's default (zeros; NaT for times: parse_fill_value).
    if (m.fill_value.is_null) {
      if (!is_time(m.data_type)) std::fill(st->fill.begin(), st->fill.end(), std::byte{0});
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
