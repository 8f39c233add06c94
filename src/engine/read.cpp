// The CPU read pipeline: batches of chunks are fetched with one batched store
// read, then decoded and placed in parallel. A chunk that is exactly a
// contiguous run of the output is decoded straight into it; others decode
// into a per-thread buffer and are copied out as a strided box. Missing
// chunks (and missing inner chunks of shards) read as the fill value.
//
// Sharded arrays (sharding extension): the indexes of a batch of shards are
// fetched in one batch (suffix ranges when the index is at the end), then the
// byte ranges of just the inner chunks the selection touches, in one batch.
#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include "engine/array_state.hpp"
#include "engine/place.hpp"
#include "engine/thread_pool.hpp"

namespace zarrgpu::engine {

namespace {

struct ReadContext {
  Store& store;
  const std::string& path;
  const ArrayState& state;
  const Plan& plan;
  std::span<std::byte> out;
  unsigned threads;
};

// Runs f, turning any failure into an Error that names array, chunk and store.
template <class F>
void with_chunk_context(const ReadContext& rc, const std::string& key, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    throw e.with_context(chunk_context(rc.path, key, rc.store));
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(ErrorKind::corrupt_data, e.what(), chunk_context(rc.path, key, rc.store));
  }
}

void fill_selected(const ReadContext& rc, const ChunkPlan& chunk, std::span<const std::uint64_t> chunk_shape) {
  const std::size_t es = rc.plan.element_size();
  const auto b = chunk_boxes(chunk, chunk_shape, rc.plan.out_strides());
  fill_box(rc.out.data() + b.out_offset * std::int64_t(es), b.out_strides, b.counts, rc.state.fill_element(), es);
}

// Decodes `stored` with `chain` and places the chunk's selected region.
void decode_and_place(const ReadContext& rc, const codec::CodecChain& chain, const ChunkPlan& chunk,
                      std::span<const std::byte> stored) {
  const std::size_t es = rc.plan.element_size();
  const auto& shape = chain.chunk().shape;
  const std::size_t nbytes = chain.chunk().nbytes();
  if (chunk.contiguous_in_output) {
    chain.decode(stored, rc.out.subspan(chunk.out_offset * es, nbytes));
    return;
  }
  thread_local Bytes scratch;
  scratch.resize(nbytes);
  chain.decode(stored, scratch.span());
  const auto b = chunk_boxes(chunk, shape, rc.plan.out_strides());
  copy_box(scratch.data() + b.chunk_offset * std::int64_t(es), b.chunk_strides,
           rc.out.data() + b.out_offset * std::int64_t(es), b.out_strides, b.counts, es);
}

std::vector<ReadResult> batched_read(const ReadContext& rc, std::span<const ReadInto> reqs) {
  try {
    return rc.store.read(reqs);
  } catch (const Error& e) {
    throw e.with_context({rc.path, "", "", rc.store.describe()});
  }
}

void read_chunks(const ReadContext& rc) {
  const auto& chain = rc.state.chain;
  const std::uint64_t n = rc.plan.num_chunks();
  const std::size_t batch = chunks_per_batch(chain.chunk().nbytes(), rc.threads);
  std::vector<ChunkPlan> chunks;
  std::vector<ReadInto> reqs;
  for (std::uint64_t b0 = 0; b0 < n; b0 += batch) {
    const std::size_t nb = std::size_t(std::min<std::uint64_t>(batch, n - b0));
    chunks.resize(nb);
    reqs.resize(nb);
    for (std::size_t i = 0; i < nb; ++i) {
      chunks[i] = rc.plan.chunk(b0 + i);
      reqs[i] = {{chunks[i].key, ByteRange::all()}, {}};
    }
    auto res = batched_read(rc, reqs);
    parallel_for(nb, [&](std::size_t i) {
      with_chunk_context(rc, chunks[i].key, [&] {
        if (!res[i].found) fill_selected(rc, chunks[i], chain.chunk().shape);
        else decode_and_place(rc, chain, chunks[i], res[i].data.span());
        res[i].data = Bytes();  // release the stored bytes early
      });
    }, rc.threads);
  }
}

// An inner chunk to fetch from a shard.
struct InnerRead {
  std::size_t shard;  // index into the batch's shards
  ChunkPlan chunk;
  std::uint64_t offset = 0, nbytes = 0;
  bool missing = false;
};

constexpr std::uint64_t kMissing = ~std::uint64_t{0};  // sharding spec: offset = nbytes = 2^64-1

void read_shards(const ReadContext& rc) {
  const auto& L = *rc.state.shard_layout;
  const auto& inner_chain = *rc.state.inner_chain;
  const auto& index_chain = *rc.state.index_chain;
  const std::uint64_t index_size = rc.state.index_encoded_size;
  const std::uint64_t slots = L.num_inner_chunks();
  const auto& shard_shape = rc.plan.chunk_shape();
  const std::uint64_t n = rc.plan.num_chunks();
  const std::size_t batch = std::max<std::size_t>(16, chunks_per_batch(index_chain.chunk().nbytes(), rc.threads));
  const std::size_t inner_batch = chunks_per_batch(inner_chain.chunk().nbytes(), rc.threads);
  for (std::uint64_t b0 = 0; b0 < n; b0 += batch) {
    const std::size_t nb = std::size_t(std::min<std::uint64_t>(batch, n - b0));
    std::vector<ChunkPlan> shards(nb);
    std::vector<ReadInto> reqs(nb);
    const ByteRange index_range = L.index_location == ShardLayout::IndexLocation::end
                                      ? ByteRange::suffix(index_size)
                                      : ByteRange::of(0, index_size);
    for (std::size_t i = 0; i < nb; ++i) {
      shards[i] = rc.plan.chunk(b0 + i);
      reqs[i] = {{shards[i].key, index_range}, {}};
    }
    auto res = batched_read(rc, reqs);
    // Decode the indexes and list the inner chunks to fetch.
    std::vector<std::vector<std::uint64_t>> index(nb);
    std::vector<std::vector<InnerRead>> per_shard(nb);
    parallel_for(nb, [&](std::size_t i) {
      if (!res[i].found) {
        with_chunk_context(rc, shards[i].key, [&] { fill_selected(rc, shards[i], shard_shape); });
        return;
      }
      try {
        index[i].resize(slots * 2);
        index_chain.decode(res[i].data.span(), std::as_writable_bytes(std::span(index[i])));
      } catch (const Error& e) {
        throw Error(e.kind(), "shard index: " + e.cause(), e.context())
            .with_context(chunk_context(rc.path, shards[i].key, rc.store));
      }
      for (auto& inner : rc.plan.inner_chunks(shards[i])) {
        InnerRead r{i, std::move(inner)};
        const std::uint64_t off = index[i][2 * r.chunk.linear_index], len = index[i][2 * r.chunk.linear_index + 1];
        if (off == kMissing && len == kMissing) {
          r.missing = true;
        } else if (off > kMissing - len || (L.index_location == ShardLayout::IndexLocation::start && off < index_size)) {
          throw Error(ErrorKind::corrupt_data,
                      "shard index entry " + std::to_string(r.chunk.linear_index) + " is out of range (offset " +
                          std::to_string(off) + ", nbytes " + std::to_string(len) + ")",
                      {rc.path, shards[i].key, "sharding_indexed", rc.store.describe()});
        }
        r.offset = off;
        r.nbytes = len;
        per_shard[i].push_back(std::move(r));
      }
    }, rc.threads);
    std::vector<InnerRead> inner;
    for (auto& v : per_shard) for (auto& r : v) inner.push_back(std::move(r));
    per_shard.clear();
    for (std::size_t c0 = 0; c0 < inner.size(); c0 += inner_batch) {
      const std::size_t nc = std::min(inner_batch, inner.size() - c0);
      std::vector<ReadInto> ireqs;
      std::vector<std::size_t> slot(nc, SIZE_MAX);
      for (std::size_t j = 0; j < nc; ++j) {
        const auto& r = inner[c0 + j];
        if (r.missing) continue;
        slot[j] = ireqs.size();
        ireqs.push_back({{shards[r.shard].key, ByteRange::of(r.offset, r.nbytes)}, {}});
      }
      std::vector<ReadResult> ires;
      try {
        ires = batched_read(rc, ireqs);
      } catch (const Error& e) {
        // The index points past the end of the shard.
        if (e.kind() != ErrorKind::io) throw;
        throw Error(ErrorKind::corrupt_data, "shard index points past the end of the shard: " + e.cause(),
                    e.context()).with_context({"", "", "sharding_indexed", ""});
      }
      parallel_for(nc, [&](std::size_t j) {
        const auto& r = inner[c0 + j];
        const auto& key = shards[r.shard].key;
        with_chunk_context(rc, key, [&] {
          if (r.missing) { fill_selected(rc, r.chunk, L.inner_chunk_shape); return; }
          auto& got = ires[slot[j]];
          // A shard that vanished between the two reads: its chunks are missing.
          if (!got.found) { fill_selected(rc, r.chunk, L.inner_chunk_shape); return; }
          decode_and_place(rc, inner_chain, r.chunk, got.data.span());
          got.data = Bytes();
        });
      }, rc.threads);
    }
  }
}

}  // namespace

void read_selection(Store& store, const std::string& path, const ArrayMetadata& metadata, const ArrayState& state,
                    std::vector<DimRange> ranges, std::span<std::byte> out, const ReadOptions& options) {
  const Plan plan(metadata, path, std::move(ranges));
  const std::uint64_t need = plan.out_elements() * plan.element_size();
  if (out.size() != need) {
    throw Error(ErrorKind::invalid_argument, "output holds " + std::to_string(out.size()) +
                                                 " bytes, the selection needs " + std::to_string(need),
                {path, "", "", store.describe()});
  }
  if (plan.num_chunks() == 0) return;
  const ReadContext rc{store, path, state, plan, out, options.threads};
  if (state.shard_layout) read_shards(rc);
  else read_chunks(rc);
}

}  // namespace zarrgpu::engine
