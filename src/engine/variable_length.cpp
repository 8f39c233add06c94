// Reads and writes of the variable-length data types (string, bytes): each
// element is a value of its own size, so chunks decode to lists of values
// (codec/array_to_bytes/vlen) rather than into the output's memory. The plan
// (chunks touched, positions inside each chunk and in the output) is the one
// fixed-size reads use; the bytes -> bytes codecs run as in any chain. Missing
// chunks read as the fill value; chunks written whole are not read first;
// chunks that end up all fill value are erased (unless write_empty_chunks).
#include <algorithm>

#include "codec/array_to_bytes/vlen/vlen_codec.hpp"
#include "codec/configuration.hpp"
#include "engine/array_state.hpp"
#include "engine/place.hpp"
#include "engine/thread_pool.hpp"
#include "store/reusing_read.hpp"

namespace zarrgpu::engine {

namespace {

const codec::VariableLengthCodec& vlen_codec(const ArrayState& state) {
  // make_array_state checked the chain of every variable-length array.
  return static_cast<const codec::VariableLengthCodec&>(state.chain.array_to_bytes());
}

std::string fill_string(const ArrayState& state) {
  return std::string(reinterpret_cast<const char*>(state.fill.data()), state.fill.size());
}

// Calls f(chunk_position, out_position) for every selected element of a chunk.
template <class F>
void for_each_selected(const ChunkBoxes& b, F&& f) {
  const std::size_t nd = b.counts.size();
  for (auto c : b.counts)
    if (c == 0) return;
  std::vector<std::uint64_t> k(nd, 0);
  std::int64_t in = b.chunk_offset, out = b.out_offset;
  while (true) {
    f(in, out);
    std::size_t d = nd;
    while (d > 0) {
      --d;
      if (++k[d] < b.counts[d]) {
        in += b.chunk_strides[d];
        out += b.out_strides[d];
        break;
      }
      in -= b.chunk_strides[d] * std::int64_t(b.counts[d] - 1);
      out -= b.out_strides[d] * std::int64_t(b.counts[d] - 1);
      k[d] = 0;
      if (d == 0) return;
    }
    if (nd == 0) return;
  }
}

// The stored chunk's values, or nullopt when it is missing.
std::optional<std::vector<std::string>> read_chunk_values(Store& store, const ArrayState& state, const std::string& key,
                                                          std::uint64_t count) {
  Bytes stored;
  if (!store::read_reusing(store, {key, ByteRange::all()}, stored)) return std::nullopt;
  Bytes current;
  std::span<const std::byte> bytes = stored.span();
  const auto b2b = state.chain.bytes_to_bytes();
  for (std::size_t k = b2b.size(); k-- > 0;) {
    try {
      current = b2b[k]->decode(bytes, 0);
    } catch (const Error& e) {
      throw e.with_context(codec::codec_context(b2b[k]->name()));
    }
    bytes = current.span();
  }
  return vlen_codec(state).decode_items(bytes, count);
}

template <class F>
void in_chunk(const std::string& path, const std::string& key, Store& store, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    throw e.with_context(chunk_context(path, key, store));
  }
}

}  // namespace

std::vector<std::string> read_variable_length_selection(Store& store, const std::string& path,
                                                        const ArrayMetadata& metadata, const ArrayState& state,
                                                        std::vector<DimRange> ranges, const ReadOptions& options) {
  const Plan plan(metadata, path, std::move(ranges));
  std::vector<std::string> out(plan.out_elements(), fill_string(state));
  const auto& chunk_shape = plan.chunk_shape();
  const std::uint64_t per_chunk = state.chain.chunk().num_elements();
  // Each chunk writes its own output positions: chunks run in parallel.
  parallel_for(std::size_t(plan.num_chunks()), [&](std::size_t i) {
    const ChunkPlan chunk = plan.chunk(i);
    in_chunk(path, chunk.key, store, [&] {
      auto values = read_chunk_values(store, state, chunk.key, per_chunk);
      if (!values) return;  // missing: the fill value, already there
      for_each_selected(chunk_boxes(chunk, chunk_shape, plan.out_strides()),
                        [&](std::int64_t in, std::int64_t o) { out[std::size_t(o)] = std::move((*values)[std::size_t(in)]); });
    });
  }, options.threads);
  return out;
}

void write_variable_length_selection(Store& store, const std::string& path, const ArrayMetadata& metadata,
                                     const ArrayState& state, std::vector<DimRange> ranges,
                                     std::span<const std::string> values, const WriteOptions& options) {
  // As write_selection: a position list may visit a chunk in several runs, which
  // would rewrite it concurrently.
  for (const auto& r : ranges)
    if (r.is_list)
      throw Error(ErrorKind::unsupported, "writes take integers and slices, not lists of positions",
                  {path, "", "", store.describe()});
  const Plan plan(metadata, path, std::move(ranges));
  if (values.size() != plan.out_elements())
    throw Error(ErrorKind::invalid_argument,
                std::to_string(values.size()) + " values for a selection of " + std::to_string(plan.out_elements()) +
                    " elements",
                {path, "", "", store.describe()});
  const auto& chunk_shape = plan.chunk_shape();
  const std::uint64_t per_chunk = state.chain.chunk().num_elements();
  const std::string fill = fill_string(state);
  parallel_for(std::size_t(plan.num_chunks()), [&](std::size_t i) {
    const ChunkPlan chunk = plan.chunk(i);
    in_chunk(path, chunk.key, store, [&] {
      std::optional<std::vector<std::string>> items;
      if (!chunk.covers_valid_region) items = read_chunk_values(store, state, chunk.key, per_chunk);
      if (!items) items.emplace(per_chunk, fill);
      for_each_selected(chunk_boxes(chunk, chunk_shape, plan.out_strides()),
                        [&](std::int64_t in, std::int64_t o) { (*items)[std::size_t(in)] = values[std::size_t(o)]; });
      const bool all_fill = std::all_of(items->begin(), items->end(), [&](const std::string& s) { return s == fill; });
      if (!options.write_empty_chunks && state.has_fill && all_fill) {
        store.erase(chunk.key);
        return;
      }
      Bytes encoded = vlen_codec(state).encode_items(*items);
      for (const auto& c : state.chain.bytes_to_bytes()) {
        try {
          encoded = c->encode(encoded.span());
        } catch (const Error& e) {
          throw e.with_context(codec::codec_context(c->name()));
        }
      }
      store.write(chunk.key, encoded.span());
    });
  }, options.threads);
}

}  // namespace zarrgpu::engine
