// The CPU read pipeline. Every chunk is one task on the shared pool: read its
// stored bytes (one pread into a per-thread buffer that is reused from chunk
// to chunk) and decode them, so the I/O of one thread overlaps the decoding
// of the others and at most one stored chunk per thread is in memory. A chunk
// that is exactly a contiguous run of the output is decoded straight into it
// (zstd writes the output itself); an uncompressed one ("bytes" alone) is
// read straight into it. Other chunks decode into a per-thread buffer and are
// copied out as a strided box. Missing chunks (and missing inner chunks of
// shards) read as the fill value.
//
// Sharded arrays (sharding extension): each shard of a batch is opened once
// (store::open_value) and its index read from it, then each inner chunk the
// selection touches is a task as above, reading its byte range from that same
// open shard, so a shard replaced meanwhile is read in one version.
//
// Read-ahead: as task i starts, the store is told about the chunks (inner
// chunks' byte ranges) up to ZARRGPU_READAHEAD bytes beyond it
// (store::ReadaheadWindow), so that a cold read has more I/O in flight than
// there are threads and the disk keeps reading while they decode. Arrays
// stored as plain bytes, with nothing to decode, go without.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <new>
#include <vector>

#include "zarrgpu/memory_limit.hpp"
#include "engine/array_state.hpp"
#include "engine/place.hpp"
#include "engine/thread_pool.hpp"
#include "store/readahead_window.hpp"
#include "store/reusing_read.hpp"
#include "store/stored_value.hpp"

namespace zarrgpu::engine {

namespace {

// What the read did, for its ReadReport: counted by the threads as they go.
struct ReadCounters {
  std::atomic<std::uint64_t> chunks{0}, missing{0}, bytes_read{0}, bytes_decoded{0};
  std::atomic<std::int64_t> read_ns{0}, decode_ns{0};
};

using Clock = std::chrono::steady_clock;

std::int64_t ns_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

struct ReadContext {
  Store& store;
  const std::string& path;
  const ArrayState& state;
  const Plan& plan;
  std::span<std::byte> out;
  unsigned threads;
  ReadCounters& counters;
};

// Runs f, turning any failure into an Error that names array, chunk and store.
template <class F>
void with_chunk_context(const ReadContext& rc, const std::string& key, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    throw e.with_context(chunk_context(rc.path, key, rc.store));
  } catch (const std::bad_alloc&) {
    // Within the memory limit (checked before the decode) but not available now.
    throw Error(ErrorKind::resource_exhausted, "out of memory reading the chunk", chunk_context(rc.path, key, rc.store));
  } catch (const std::exception& e) {
    throw Error(ErrorKind::corrupt_data, e.what(), chunk_context(rc.path, key, rc.store));
  }
}

void fill_selected(const ReadContext& rc, const ChunkPlan& chunk, std::span<const std::uint64_t> chunk_shape) {
  rc.counters.missing.fetch_add(1, std::memory_order_relaxed);
  const std::size_t es = rc.plan.element_size();
  const auto b = chunk_boxes(chunk, chunk_shape, rc.plan.out_strides());
  fill_box(rc.out.data() + b.out_offset * std::int64_t(es), b.out_strides, b.counts, rc.state.fill_element(), es);
}

// Per-thread buffers, reused from chunk to chunk: fresh memory for each chunk
// costs a page fault per 4 KiB, as much as decoding it. Buffers above
// kKeepBytes are released after use so that one huge chunk does not pin its
// size on every thread for the life of the pool.
constexpr std::size_t kKeepBytes = std::size_t(256) << 20;

struct ThreadBuffers {
  Bytes stored;   // a chunk's stored bytes
  Bytes decoded;  // a decoded chunk that is not a contiguous run of the output
};

ThreadBuffers& thread_buffers() {
  thread_local ThreadBuffers b;
  return b;
}

void trim(Bytes& b) {
  if (b.size() > kKeepBytes) b = Bytes();
}

// The chain stores the array's bytes as they are ("bytes" with native order,
// no other codec): a stored chunk can be read straight into the output.
bool stores_plain_bytes(const codec::CodecChain& chain) {
  return chain.array_to_array().empty() && chain.bytes_to_bytes().empty() &&
         chain.array_to_bytes().decode_is_copy(chain.representations().back());
}

// Read-ahead overlaps the disk with decoding. Chunks stored as plain bytes
// need none: every thread is reading, their preads keep the disk as busy as
// hints would, and hints only added requests (bench/cpu_read/NOTES.md).
std::uint64_t readahead_budget(const codec::CodecChain& chain) {
  return stores_plain_bytes(chain) ? 0 : store::readahead_bytes();
}

// Decodes `stored` with `chain` and places the chunk's selected region.
void decode_and_place(const ReadContext& rc, const codec::CodecChain& chain, const ChunkPlan& chunk,
                      std::span<const std::byte> stored) {
  const std::size_t es = rc.plan.element_size();
  const auto& shape = chain.chunk().shape;
  const std::size_t nbytes = chain.chunk().nbytes();
  // Where the codecs fix the stored size (no compressor), a chunk of another
  // size is refused before its decode buffer is allocated: a 10-byte file
  // must not cost the buffer of a 1 TiB chunk.
  if (const auto fixed = chain.encoded_size(); fixed && stored.size() != *fixed) {
    const auto b2b = chain.bytes_to_bytes();
    const std::string_view outer = b2b.empty() ? chain.array_to_bytes().name() : b2b.back()->name();
    throw Error(ErrorKind::corrupt_data,
                "chunk has " + std::to_string(stored.size()) + " bytes; its codecs store every chunk in " +
                    std::to_string(*fixed),
                {"", "", std::string(outer), ""});
  }
  // A chunk's decoded size is the metadata's to declare (chunks [32, 2^32-1] of
  // float64 declare 1 TiB); one beyond the memory limit is refused before its
  // buffer, or the codecs' buffers, are made.
  check_allocation(nbytes, "decoding the chunk");
  const auto t0 = Clock::now();
  rc.counters.bytes_decoded.fetch_add(nbytes, std::memory_order_relaxed);
  if (chunk.contiguous_in_output) {
    chain.decode(stored, rc.out.subspan(chunk.out_offset * es, nbytes));
    rc.counters.decode_ns.fetch_add(ns_since(t0), std::memory_order_relaxed);
    return;
  }
  Bytes& scratch = thread_buffers().decoded;
  store::reset_bytes(scratch, nbytes);
  chain.decode(stored, scratch.span());
  rc.counters.decode_ns.fetch_add(ns_since(t0), std::memory_order_relaxed);
  const auto b = chunk_boxes(chunk, shape, rc.plan.out_strides());
  copy_box(scratch.data() + b.chunk_offset * std::int64_t(es), b.chunk_strides,
           rc.out.data() + b.out_offset * std::int64_t(es), b.out_strides, b.counts, es);
  trim(scratch);
}

// One chunk: fetch and decode (or fill), on the calling thread.
void read_chunk(const ReadContext& rc, const codec::CodecChain& chain, bool plain, const ChunkPlan& chunk) {
  const std::size_t nbytes = chain.chunk().nbytes();
  rc.counters.chunks.fetch_add(1, std::memory_order_relaxed);
  if (plain && chunk.contiguous_in_output) {
    const auto dest = rc.out.subspan(chunk.out_offset * rc.plan.element_size(), nbytes);
    const auto t0 = Clock::now();
    const auto got = store::read_whole_into(rc.store, chunk.key, dest);
    rc.counters.read_ns.fetch_add(ns_since(t0), std::memory_order_relaxed);
    if (!got) { fill_selected(rc, chunk, chain.chunk().shape); return; }
    if (*got == nbytes) {
      rc.counters.bytes_read.fetch_add(nbytes, std::memory_order_relaxed);
      return;
    }
    // A stored chunk of the wrong size: decode it below, which says what is wrong.
  }
  const auto t0 = Clock::now();
  // A stored chunk far larger than its codecs can make of the chunk is
  // refused before it is read (a link to a sparse 8 GiB file is not loaded).
  // Twice the bound and 1 MiB more: other encoders may add headers or frames.
  const auto max = chain.max_encoded_size();
  const bool bounded = max && *max < (SIZE_MAX >> 2);
  const std::uint64_t limit = bounded ? 2 * *max + (1u << 20) : ByteRange::npos;
  auto too_big = [&](std::uint64_t size) {
    // The stored bytes are what the last codec decodes.
    const auto b2b = chain.bytes_to_bytes();
    const std::string codec(b2b.empty() ? chain.array_to_bytes().name() : b2b.back()->name());
    return Error(ErrorKind::corrupt_data,
                 "the stored chunk is " + std::to_string(size) + " bytes, more than its codecs can encode " +
                     std::to_string(chain.chunk().nbytes()) + " bytes into (at most " + std::to_string(*max) + ")",
                 chunk_context(rc.path, chunk.key, rc.store))
        .with_context({"", "", codec, ""});
  };
  Bytes& stored = thread_buffers().stored;
  if (auto* whole = dynamic_cast<store::WholeValueReader*>(&rc.store)) {
    // One request where asking the size first would be a second round trip.
    const auto size = whole->read_whole_bounded(chunk.key, limit, stored);
    if (!size) {
      rc.counters.read_ns.fetch_add(ns_since(t0), std::memory_order_relaxed);
      fill_selected(rc, chunk, chain.chunk().shape);
      return;
    }
    if (*size > limit) throw too_big(*size);
  } else {
    const auto value = store::open_value(rc.store, chunk.key);
    if (!value) {
      rc.counters.read_ns.fetch_add(ns_since(t0), std::memory_order_relaxed);
      fill_selected(rc, chunk, chain.chunk().shape);
      return;
    }
    if (value->size() > limit) throw too_big(value->size());
    store::reset_bytes(stored, value->size());
    value->read(0, stored.span());
  }
  rc.counters.read_ns.fetch_add(ns_since(t0), std::memory_order_relaxed);
  rc.counters.bytes_read.fetch_add(stored.size(), std::memory_order_relaxed);
  decode_and_place(rc, chain, chunk, stored.span());
  trim(stored);
}

void read_chunks(const ReadContext& rc) {
  const auto& chain = rc.state.chain;
  const bool plain = stores_plain_bytes(chain);
  const std::size_t n = std::size_t(rc.plan.num_chunks());
  // The decoded size stands in for the stored one (unknown before the open).
  store::ReadaheadWindow ahead(rc.store, n, chain.chunk().nbytes(), [&](std::size_t i) -> std::optional<ReadRequest> {
    return ReadRequest{rc.plan.chunk_key(i), ByteRange::all()};
  }, readahead_budget(chain));
  parallel_for(n, [&](std::size_t i) {
    ahead.reached(i);
    const ChunkPlan chunk = rc.plan.chunk(i);
    with_chunk_context(rc, chunk.key, [&] { read_chunk(rc, chain, plain, chunk); });
  }, rc.threads);
}

// An inner chunk to fetch from a shard.
struct InnerRead {
  std::size_t shard;  // index into the batch's shards
  ChunkPlan chunk;
  codec::InnerChunkRange range;
};

// One inner chunk: read its byte range from the shard opened with its index
// (which validated the range against that shard's size), and decode it (or fill).
void read_inner_chunk(const ReadContext& rc, const store::StoredValue& shard, const InnerRead& r) {
  const codec::ShardingIndexedCodec& sharding = *rc.state.sharding;
  const auto& chain = sharding.inner_chain();
  rc.counters.chunks.fetch_add(1, std::memory_order_relaxed);
  if (r.range.missing) { fill_selected(rc, r.chunk, sharding.inner_chunk_shape()); return; }
  const std::size_t nbytes = chain.chunk().nbytes();
  const auto t0 = Clock::now();
  rc.counters.bytes_read.fetch_add(r.range.nbytes, std::memory_order_relaxed);
  if (r.chunk.contiguous_in_output && r.range.nbytes == nbytes && stores_plain_bytes(chain)) {
    shard.read(r.range.offset, rc.out.subspan(r.chunk.out_offset * rc.plan.element_size(), nbytes));
    rc.counters.read_ns.fetch_add(ns_since(t0), std::memory_order_relaxed);
    return;
  }
  Bytes& stored = thread_buffers().stored;
  store::reset_bytes(stored, r.range.nbytes);
  shard.read(r.range.offset, stored.span());
  rc.counters.read_ns.fetch_add(ns_since(t0), std::memory_order_relaxed);
  decode_and_place(rc, chain, r.chunk, stored.span());
  trim(stored);
}

// Shards open at once in a batch: each holds a file descriptor until its inner
// chunks are read.
constexpr std::uint64_t kMaxOpenShards = 256;

void read_shards(const ReadContext& rc) {
  const codec::ShardingIndexedCodec& sharding = *rc.state.sharding;
  const codec::ShardIndexFormat& index_format = sharding.index_format();
  const std::uint64_t slots = sharding.num_inner_chunks();
  const auto& shard_shape = rc.plan.chunk_shape();
  const std::uint64_t n = rc.plan.num_chunks();
  // Shards per batch: enough inner chunks (at most `slots` each) that the
  // barrier at the end of a batch idles threads for a small fraction of it,
  // few enough that the batch's indexes, inner-chunk list and open shards stay small.
  const unsigned threads = rc.threads ? rc.threads : ThreadPool::shared().size();
  const std::uint64_t want_inner = std::max<std::uint64_t>(256, std::uint64_t(threads) * 32);
  const std::size_t batch =
      std::size_t(std::clamp<std::uint64_t>(want_inner / std::max<std::uint64_t>(slots, 1), 16, kMaxOpenShards));
  for (std::uint64_t b0 = 0; b0 < n; b0 += batch) {
    const std::size_t nb = std::size_t(std::min<std::uint64_t>(batch, n - b0));
    std::vector<ChunkPlan> shards(nb);
    for (std::size_t i = 0; i < nb; ++i) shards[i] = rc.plan.chunk(b0 + i);
    // Each shard is opened once and its index and inner chunks are read from
    // that one open value, so a shard rewritten meanwhile by another process
    // is read whole in one version, never an index of one and data of another.
    std::vector<std::unique_ptr<store::StoredValue>> values(nb);
    std::vector<std::vector<InnerRead>> per_shard(nb);
    parallel_for(nb, [&](std::size_t i) {
      codec::ShardIndex index;
      with_chunk_context(rc, shards[i].key, [&] {
        values[i] = store::open_value(rc.store, shards[i].key);
        if (!values[i]) {
          // A missing shard: the inner chunks the selection touches in it all read as fill.
          const std::uint64_t n_inner = rc.plan.inner_chunks(shards[i]).size();
          rc.counters.chunks.fetch_add(n_inner, std::memory_order_relaxed);
          rc.counters.missing.fetch_add(n_inner - 1, std::memory_order_relaxed);  // fill_selected counts one
          fill_selected(rc, shards[i], shard_shape);
          return;
        }
        const store::StoredValue& v = *values[i];
        index = index_format.read(v.size(), [&](std::uint64_t at, std::span<std::byte> dest) { v.read(at, dest); });
        rc.counters.bytes_read.fetch_add(index_format.encoded_size(), std::memory_order_relaxed);
        for (auto& inner : rc.plan.inner_chunks(shards[i])) {
          const codec::InnerChunkRange range = index.range(std::size_t(inner.linear_index));
          per_shard[i].push_back(InnerRead{i, std::move(inner), range});
        }
      });
    }, rc.threads);
    std::vector<InnerRead> inner;
    for (auto& v : per_shard) for (auto& r : v) inner.push_back(std::move(r));
    per_shard.clear();
    store::ReadaheadWindow ahead(rc.store, inner.size(), sharding.inner_chain().chunk().nbytes(),
                                 [&](std::size_t j) -> std::optional<ReadRequest> {
                                   const auto& r = inner[j];
                                   if (r.range.missing) return std::nullopt;
                                   return ReadRequest{shards[r.shard].key, ByteRange::of(r.range.offset, r.range.nbytes)};
                                 }, readahead_budget(sharding.inner_chain()));
    parallel_for(inner.size(), [&](std::size_t j) {
      ahead.reached(j);
      const auto& r = inner[j];
      const auto& key = shards[r.shard].key;
      with_chunk_context(rc, key, [&] { read_inner_chunk(rc, *values[r.shard], r); });
    }, rc.threads);
  }
}

}  // namespace

void read_selection(Store& store, const std::string& path, const ArrayMetadata& metadata, const ArrayState& state,
                    std::vector<DimRange> ranges, std::span<std::byte> out, const ReadOptions& options,
                    ReadReport* report) {
  const auto t0 = Clock::now();
  const Plan plan(metadata, path, std::move(ranges));
  const std::uint64_t need = plan.out_elements() * plan.element_size();
  if (out.size() != need) {
    throw Error(ErrorKind::invalid_argument, "output holds " + std::to_string(out.size()) +
                                                 " bytes, the selection needs " + std::to_string(need),
                {path, "", "", store.describe()});
  }
  ReadCounters counters;
  if (plan.num_chunks() != 0) {
    const ReadContext rc{store, path, state, plan, out, options.threads, counters};
    if (state.sharding) read_shards(rc);
    else read_chunks(rc);
  }
  if (!report) return;
  ReadReport& r = *report;
  r = ReadReport{};
  r.io_path = "store";
  r.chunks = counters.chunks;
  r.missing_chunks = counters.missing;
  r.bytes_read = counters.bytes_read;
  r.bytes_decoded = counters.bytes_decoded;
  r.bytes_out = need;
  r.seconds_read_threads = double(counters.read_ns) * 1e-9;
  r.seconds_decode_threads = double(counters.decode_ns) * 1e-9;
  const std::uint64_t decoded = r.chunks - r.missing_chunks;
  for (auto& name : chain_codec_names(state)) r.codecs.push_back({std::move(name), decoded, 0});
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace zarrgpu::engine
