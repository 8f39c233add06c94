// The CPU write pipeline. Each touched chunk (for sharded arrays: each touched
// shard, rebuilt whole through the sharding codec) is, in parallel:
// - fully covered: encoded from the caller's data (edge chunks padded with
//   the fill value, as zarr-python does);
// - partly covered: its stored value is read (or the fill value taken),
//   modified, and encoded again.
// Chunks that end up equal to the fill value are erased rather than stored,
// unless write_empty_chunks (zarr-python's default behaviour).
#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "zarrgpu/memory_limit.hpp"
#include "engine/array_state.hpp"
#include "engine/place.hpp"
#include "engine/thread_pool.hpp"

namespace zarrgpu::engine {

namespace {

bool is_edge_chunk(const ChunkPlan& c, std::span<const std::uint64_t> shape, std::span<const std::uint64_t> chunk_shape) {
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if ((c.coords[d] + 1) * chunk_shape[d] > shape[d]) return true;
  }
  return false;
}

void fill_all(Bytes& buf, const std::byte* fill, std::size_t es) {
  const std::uint64_t n = buf.size() / es;
  const std::int64_t stride = 1;
  fill_box(buf.data(), std::span(&stride, 1), std::span(&n, 1), fill, es);
}

}  // namespace

void write_selection(Store& store, const std::string& path, const ArrayMetadata& metadata, const ArrayState& state,
                     std::vector<DimRange> ranges, std::span<const std::byte> data, const WriteOptions& options) {
  // A position list may visit a chunk in several runs, which would modify it
  // concurrently (plan.hpp): writes take slices and integers only.
  for (const auto& r : ranges) {
    if (r.is_list)
      throw Error(ErrorKind::unsupported, "writes take integers and slices, not lists of positions",
                  {path, "", "", store.describe()});
  }
  const Plan plan(metadata, path, std::move(ranges));
  const std::size_t es = plan.element_size();
  const std::uint64_t need = plan.out_elements() * es;
  if (data.size() != need) {
    throw Error(ErrorKind::invalid_argument, "data holds " + std::to_string(data.size()) +
                                                 " bytes, the selection needs " + std::to_string(need),
                {path, "", "", store.describe()});
  }
  const auto& chain = state.chain;
  const std::size_t nbytes = chain.chunk().nbytes();
  const auto& chunk_shape = plan.chunk_shape();
  const std::uint64_t n = plan.num_chunks();
  const std::size_t batch = chunks_per_batch(nbytes, options.threads);
  for (std::uint64_t b0 = 0; b0 < n; b0 += batch) {
    const std::size_t nb = std::size_t(std::min<std::uint64_t>(batch, n - b0));
    std::vector<ChunkPlan> chunks(nb);
    std::vector<ReadInto> reqs;
    std::vector<std::size_t> slot(nb, SIZE_MAX);
    for (std::size_t i = 0; i < nb; ++i) {
      chunks[i] = plan.chunk(b0 + i);
      if (!chunks[i].covers_valid_region) {
        slot[i] = reqs.size();
        reqs.push_back({{chunks[i].key, ByteRange::all()}, {}});
      }
    }
    std::vector<ReadResult> existing;
    try {
      existing = store.read(reqs);
    } catch (const Error& e) {
      throw e.with_context({path, "", "", store.describe()});
    }
    parallel_for(nb, [&](std::size_t i) {
      const ChunkPlan& c = chunks[i];
      try {
        // A whole chunk that is one contiguous run of the data is encoded from
        // the data itself: no copy of a chunk (a whole shard when sharded).
        const bool in_place = c.covers_valid_region && c.contiguous_in_output &&
                              !is_edge_chunk(c, metadata.shape, chunk_shape);
        // The chunk and its encoding are sized by the metadata (see read.cpp).
        check_allocation(nbytes, "encoding the chunk");
        Bytes buf;
        std::span<const std::byte> chunk_bytes;
        if (in_place) {
          chunk_bytes = data.subspan(c.out_offset * es, nbytes);
        } else {
          buf = Bytes(nbytes);
          if (c.covers_valid_region) {
            if (is_edge_chunk(c, metadata.shape, chunk_shape)) fill_all(buf, state.fill_element(), es);
          } else if (existing[slot[i]].found) {
            chain.decode(existing[slot[i]].data.span(), buf.span());
            existing[slot[i]].data = Bytes();
          } else {
            fill_all(buf, state.fill_element(), es);
          }
          const auto b = chunk_boxes(c, chunk_shape, plan.out_strides());
          copy_box(data.data() + b.out_offset * std::int64_t(es), b.out_strides,
                   buf.data() + b.chunk_offset * std::int64_t(es), b.chunk_strides, b.counts, es);
          chunk_bytes = buf.span();
        }
        if (!options.write_empty_chunks && state.has_fill && all_equal(chunk_bytes, state.fill_element(), es)) {
          store.erase(c.key);
        } else {
          const Bytes encoded = chain.encode(chunk_bytes);
          // An empty encoding means "nothing to store" (the sharding codec
          // gives one for a shard whose inner chunks are all empty).
          if (encoded.empty()) store.erase(c.key);
          else store.write(c.key, encoded.span());
        }
      } catch (const Error& e) {
        throw e.with_context(chunk_context(path, c.key, store));
      } catch (const std::bad_alloc&) {
        throw Error(ErrorKind::resource_exhausted, "out of memory writing the chunk", chunk_context(path, c.key, store));
      }
    }, options.threads);
  }
}

}  // namespace zarrgpu::engine
