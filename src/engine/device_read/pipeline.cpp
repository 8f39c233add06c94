#include "engine/device_read/pipeline.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

#include "engine/device_read/batch.hpp"
#include "engine/device_read/device_chain.hpp"
#include "engine/device_read/item_source.hpp"
#include "engine/device_read/pipeline_resources.hpp"
#include "engine/thread_pool.hpp"
#include "gpu/place.hpp"
#include "store/device_reader.hpp"
#include "store/readahead_window.hpp"
#include "zarrgpu/config.hpp"

namespace zarrgpu::engine::device_read {

namespace {

using Clock = std::chrono::steady_clock;
using Mode = DeviceChain::Mode;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Total memory of a GPU (0 when CUDA cannot say): sizes the staging
// defaults. Asked once per device (a read of two frames takes ~14 ms).
std::uint64_t device_memory_bytes(int device) {
  static std::mutex mutex;
  static std::map<int, std::uint64_t> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(device); it != known.end()) return it->second;
  cudaDeviceProp prop{};
  const std::uint64_t bytes = cudaGetDeviceProperties(&prop, device) == cudaSuccess ? prop.totalGlobalMem : 0;
  return known[device] = bytes;
}

// The staging of reads to `device`: Config's settings (defaults for its
// memory where they leave the choice), then the caller's limit (0: none).
gpu::StagingConfig staging_config(int device, std::uint64_t limit = 0) {
  const auto c = gpu::StagingConfig::from(config(), device_memory_bytes(device));
  return limit ? c.within(limit) : c;
}

// Per ring slot, what its batch in flight needs when it is retired: its items,
// and which of them the batched decoder decodes, in the decoder's order.
struct InFlight {
  std::vector<ReadItem> items;
  std::vector<std::size_t> decoded;  // indices into items
  std::size_t expected = 0;          // each one's decoded size
  std::string codecs;                // for messages ("blosc")
  const codec::BatchedDeviceDecoder* decoder = nullptr;
};

class Reader {
 public:
  Reader(const Array& array, const Plan& plan, std::byte* out, int device, const ReadOptions& options,
         DeviceReadStats& stats)
      : array_(array), plan_(plan), out_(out), options_(options), stats_(stats),
        config_(staging_config(device, options.device_memory_limit)),
        source_(*array.store(), array.metadata(), array.path(), plan),
        codec_chain_(source_.chain(source_.sharded() ? 1 : 0)),
        decoder_(find_device_decoder(codec_chain_)),
        choice_(decoder_ ? decoder_->choice() : DecoderChoice::auto_),
        gpu_chain_(classify_chain(codec_chain_, choice_ != DecoderChoice::cpu)),
        cpu_chain_(classify_chain(codec_chain_, false)),
        chain_(gpu_chain_),
        lease_(device, config_),
        in_flight_(lease_->slots.size()) {
    // Per batch, compressed chunks decode on the GPU or on CPU threads, as the
    // decoder prefers (BatchedDeviceDecoder::prefers_device).
    switchable_ = gpu_chain_.mode == Mode::gpu && gpu_chain_.decoder && choice_ == DecoderChoice::auto_;
    int sms = 0;
    ZARRGPU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    resources_.gpu_sms = static_cast<unsigned>(sms);
    resources_.cpu_threads = ThreadPool::shared().size() + 1;  // the calling thread works too
    if (decoder_) {
      stats_.decoder_codec = device_decoder_codec(codec_chain_);
      stats_.decoder_rule = decoder_->describe_choice(resources_);
    }
    fill_ = {};
    const auto& fill_bytes = array.metadata().fill_value.bytes;
    std::memcpy(&fill_, fill_bytes.data(), std::min(sizeof(fill_), fill_bytes.size()));
    choose_io_path();
  }

  void run() {
    // Our streams start after the work already queued on the caller's stream.
    const auto caller = static_cast<cudaStream_t>(options_.cuda_stream);
    gpu::Event caller_ready;
    caller_ready.record(caller);
    for (auto& s : lease_->slots) caller_ready.wait_on(s->stream.get());

    std::deque<ReadItem> pending;
    bool more = true;
    std::size_t k = 0;
    for (;;) {
      if (!returned_.empty()) {
        run_returned(k);
        continue;
      }
      // Keep about two batches of items planned ahead, no more: memory stays
      // bounded whatever the number of chunks, and so do the shards the
      // planned items hold open.
      const bool grow = more && source_.can_open_shards();
      if (grow && pending.size() * std::max<std::size_t>(chain_.decoded_bytes, 1) < 2 * config_.scratch_bytes) {
        const auto t0 = Clock::now();
        more = source_.next(config_.scratch_bytes, pending);
        stats_.seconds_io += seconds_since(t0);
      }
      if (pending.empty()) {
        if (more) continue;
        break;
      }
      if (grow && more && pending.size() * std::max<std::size_t>(chain_.decoded_bytes, 1) < config_.scratch_bytes &&
          pending.size() < kMaxBatchItems) {
        continue;  // top up before cutting a batch
      }
      std::vector<ReadItem> batch = cut_batch(pending);
      hinted_ -= std::min(hinted_, batch.size());
      hint_ahead(pending);
      run_batch(k++, std::move(batch));
    }
    // The last batches may hand chunks back, whose batches may too.
    for (;;) {
      for (std::size_t s = 0; s < lease_->slots.size(); ++s) retire(s);
      if (returned_.empty()) break;
      while (!returned_.empty()) run_returned(k);
    }
    for (auto& s : lease_->slots) s->placed.wait_on(caller);
  }

 private:
  // The next batch, cut for the GPU decoder; when the decoder leaves its
  // chunks to CPU threads, cut again for them (the pinned slot then holds decoded
  // chunks too, so a CPU batch may be shorter). Sets chain_ for the batch.
  std::vector<ReadItem> cut_batch(std::deque<ReadItem>& pending) {
    chain_ = gpu_chain_;
    std::vector<ReadItem> batch = take_batch(pending, chain_, limits());
    if (!switchable_) return batch;
    const auto present = static_cast<std::size_t>(
        std::count_if(batch.begin(), batch.end(), [](const ReadItem& it) { return !it.missing; }));
    if (chain_.decoder->prefers_device(present, chain_.decoded_bytes, resources_)) return batch;
    for (auto it = batch.rbegin(); it != batch.rend(); ++it) pending.push_front(std::move(*it));
    chain_ = cpu_chain_;
    return take_batch(pending, chain_, limits());
  }

  // Chunks the GPU decoder handed back (BatchedDeviceDecoder::needs_host),
  // in a batch of their own on CPU threads. Their first placement, from what
  // the GPU decoder left, has finished (retire waited for it), so this one
  // overwrites it.
  void run_returned(std::size_t& k) {
    chain_ = cpu_chain_;
    run_batch(k++, take_batch(returned_, chain_, limits()));
  }

  // Cold reads: the store starts reading the items planned after the batch
  // about to run (store::hint, read-ahead into the page cache), up to
  // ZARRGPU_READAHEAD bytes of stored data, so that the disk has more in
  // flight than one batch's reads. Not for cuFile reads, which bypass the
  // page cache.
  void hint_ahead(const std::deque<ReadItem>& pending) {
    if (hints_off_ || readahead_bytes_ == 0 || io_ != store::IoPath::posix) return;
    std::uint64_t ahead = 0;
    std::vector<ReadRequest> requests;
    for (std::size_t i = 0; i < pending.size() && ahead < readahead_bytes_; ++i) {
      const ReadItem& it = pending[i];
      if (it.missing) continue;
      ahead += it.length;
      if (i < hinted_) continue;
      requests.push_back(ReadRequest{it.key, ByteRange::of(it.offset, it.length)});
      hinted_ = i + 1;
    }
    if (!requests.empty() && !store::hint_requests(*array_.store(), std::move(requests), 0)) hints_off_ = true;
  }

  // GPU items of a GPU-mode batch may be read by cuFile; CPU batches use the ring.
  bool gds_batch() const { return io_ != store::IoPath::posix && chain_.mode == Mode::gpu; }
  BatchLimits limits() const { return {config_.slot_bytes, config_.scratch_bytes, gds_batch()}; }

  // The store says how its bytes reach the device (store/device_reader.hpp);
  // batches whose codecs decode on CPU threads read through the ring anyway.
  void choose_io_path() {
    std::string why;
    if (chain_.mode != Mode::gpu) {
      io_ = store::IoPath::posix;
      why = std::string("posix: codecs decode on CPU threads (") + chain_.mode_name() + " mode)";
    } else {
      store::DeviceReadPath p = store::device_read_path(*array_.store(), store::io_request());
      io_ = p.path;
      why = std::move(p.why);
    }
    if (io_ != store::IoPath::posix) device_reader_ = dynamic_cast<store::DeviceReader*>(array_.store().get());
    if (io_ != store::IoPath::posix && switchable_) why += "; batches decoded on CPU threads read through posix";
    stats_.io_path = store::to_string(io_);
    stats_.io_detail = why;
  }

  // Waits for the batch last enqueued on slot `s`, accounts its GPU times,
  // and checks its decoder statuses.
  void retire(std::size_t s) {
    SlotResources& slot = *lease_->slots[s];
    if (!slot.pending) return;
    slot.placed.synchronize();
    slot.pending = false;
    stats_.seconds_h2d += slot.copied.elapsed_since(slot.start) / 1e3;
    stats_.seconds_gpu_decode += slot.decoded.elapsed_since(slot.copied) / 1e3;
    stats_.seconds_place += slot.placed.elapsed_since(slot.decoded) / 1e3;
    InFlight batch = std::move(in_flight_[s]);
    in_flight_[s] = {};
    const std::size_t n = batch.decoded.size();
    const auto* sizes = reinterpret_cast<const std::uint64_t*>(slot.results.data());
    const auto* statuses = reinterpret_cast<const std::uint32_t*>(slot.results.data() + n * sizeof(std::uint64_t));
    for (std::size_t i = 0; i < n; ++i) {
      ReadItem& it = batch.items[batch.decoded[i]];
      if (statuses[i] != 0 && batch.decoder->needs_host(statuses[i])) {
        hand_back(std::move(it), batch.decoder->status_name(statuses[i]));
        continue;
      }
      if (statuses[i] != 0) {
        throw Error(ErrorKind::corrupt_data, "GPU decoder: " + batch.decoder->status_name(statuses[i]),
                    context(it.name, batch.codecs));
      }
      if (sizes[i] != batch.expected) {
        throw Error(ErrorKind::corrupt_data,
                    "decoded to " + std::to_string(sizes[i]) + " bytes, expected " + std::to_string(batch.expected),
                    context(it.name, batch.codecs));
      }
    }
  }

  // A chunk the GPU decoder counted as decoded goes to CPU threads instead.
  void hand_back(ReadItem&& item, const std::string& why) {
    --stats_.chunks;
    --stats_.gpu_decoded_chunks;
    --stats_.decoder_gpu_chunks;
    stats_.bytes_decoded -= gpu_chain_.decoded_bytes;
    if (stats_.decoder_returned_chunks++ == 0) stats_.decoder_returned_why = why;
    returned_.push_back(std::move(item));
  }

  ErrorContext context(const std::string& name, const std::string& codec) const {
    return {array_.path(), name, codec, array_.store()->describe()};
  }

  void run_batch(std::size_t k, std::vector<ReadItem> items) {
    PipelineResources& r = *lease_;
    const std::size_t s = k % r.slots.size();
    SlotResources& slot = *r.slots[s];
    retire(s);
    const BatchLayout L = lay_out(items, chain_, gds_batch());
    std::byte* pinned = r.ring.acquire(k, L.pinned_bytes).data();
    slot.device.reserve(L.device_bytes);
    std::byte* dev = slot.device.data();

    fetch(items, L, pinned, dev);
    InFlight& flight = in_flight_[s];
    const Descriptors d = describe(items, L, pinned, dev, flight);
    enqueue(k, slot, L, d, pinned, dev);

    ++stats_.batches;
    stats_.chunks += items.size();
    stats_.bytes_read += L.bytes_read;
    for (const ReadItem& it : items) {
      if (it.missing) ++stats_.missing_chunks;
      else {
        stats_.bytes_decoded += chain_.decoded_bytes;
        ++(chain_.mode == Mode::gpu ? stats_.gpu_decoded_chunks : stats_.cpu_decoded_chunks);
        if (decoder_) ++(chain_.mode == Mode::gpu && chain_.decoder ? stats_.decoder_gpu_chunks : stats_.decoder_cpu_chunks);
      }
    }
    flight.items = std::move(items);
  }

  // Host stage: reads (and CPU decoding) on the shared thread pool.
  void fetch(const std::vector<ReadItem>& items, const BatchLayout& L, std::byte* pinned, std::byte* dev) {
    const auto t0 = Clock::now();
    Store& store = *array_.store();
    std::atomic<std::int64_t> read_ns{0}, decode_ns{0};
    for (const ReadGroup& g : L.groups) {
      // Raw chunks are placed as they are: their size must be the chunk's.
      if (chain_.mode == Mode::gpu && !chain_.decoder && g.length != chain_.decoded_bytes) {
        throw Error(ErrorKind::corrupt_data,
                    "stored chunk has " + std::to_string(g.length) + " bytes, expected " + std::to_string(chain_.decoded_bytes),
                    context(items[g.first].name, "bytes"));
      }
    }
    // A read per group, or, for a GPU-mode batch's posix groups (nothing
    // decodes on the CPU after them), pieces of config_.read_piece_bytes
    // over all the reading threads (staging_config.hpp).
    struct Piece {
      std::size_t group;
      std::uint64_t at, length;  // in the group's range
    };
    std::vector<Piece> pieces;
    for (std::size_t gi = 0; gi < L.groups.size(); ++gi) {
      const ReadGroup& g = L.groups[gi];
      const bool split = chain_.mode == Mode::gpu && g.device == ItemPlacement::none;
      const std::uint64_t step = split ? config_.read_piece_bytes : g.length;
      std::uint64_t at = 0;
      do {
        const std::uint64_t length = std::min(step, g.length - at);
        pieces.push_back({gi, at, length});
        at += length;
      } while (at < g.length);
    }
    parallel_for(pieces.size(), [&](std::size_t pi) {
      const Piece& piece = pieces[pi];
      const ReadGroup& g = L.groups[piece.group];
      const ReadItem& first = items[g.first];
      auto t = Clock::now();
      if (g.device != ItemPlacement::none) {
        gds_read(first.key, dev + g.device, g.offset, g.length);
      } else if (first.shard) {
        // An inner chunk: from the shard opened for its index (read_item.hpp).
        try {
          first.shard->read(g.offset + piece.at, std::span<std::byte>(pinned + g.pinned + piece.at, piece.length));
        } catch (const Error& e) {
          throw e.with_context(context(first.name, ""));
        }
      } else {
        ReadInto req{ReadRequest{first.key, ByteRange::of(g.offset + piece.at, piece.length)},
                     std::span<std::byte>(pinned + g.pinned + piece.at, piece.length)};
        std::vector<ReadResult> res;
        try {
          res = store.read(std::span<const ReadInto>(&req, 1));
        } catch (const Error& e) {
          throw e.with_context(context(first.name, ""));
        }
        if (!res[0].found) throw Error(ErrorKind::io, "chunk vanished while it was read", context(first.name, ""));
        if (res[0].size != piece.length)
          throw Error(ErrorKind::io,
                      "short read: " + std::to_string(res[0].size) + " of " + std::to_string(piece.length) + " bytes at " +
                          std::to_string(g.offset + piece.at),
                      context(first.name, ""));
      }
      read_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
      if (chain_.mode == Mode::gpu) return;
      t = Clock::now();  // CPU mode: the piece is the whole group
      for (std::size_t i = g.first; i <= g.last; ++i) {
        const ItemPlacement& p = L.items[i];
        cpu_decode(items[i], std::span<const std::byte>(pinned + p.pinned_in, items[i].length),
                   std::span<std::byte>(pinned + p.cpu_out, chain_.decoded_bytes));
      }
      decode_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
    });
    stats_.seconds_read_threads += read_ns.load() / 1e9;
    stats_.seconds_cpu_decode_threads += decode_ns.load() / 1e9;
    stats_.seconds_io += seconds_since(t0);
  }

  void cpu_decode(const ReadItem& it, std::span<const std::byte> in, std::span<std::byte> out) const {
    try {
      if (chain_.mode == Mode::cpu) {
        codec_chain_.decode(in, out);
        return;
      }
      // cpu_bytes: the bytes->bytes codecs, last first; `bytes` and the rest run on the GPU.
      const auto b2b = codec_chain_.bytes_to_bytes();
      // What each outer codec may decode to: what the codecs inside it could
      // have made of `out` at worst (CodecChain::decode bounds it the same way).
      std::vector<std::size_t> limits(b2b.size(), out.size());
      for (std::size_t i = 1; i < b2b.size(); ++i) limits[i] = b2b[i - 1]->max_encoded_size(limits[i - 1]);
      Bytes held;
      std::span<const std::byte> cur = in;
      for (std::size_t i = b2b.size(); i-- > 1;) {
        held = b2b[i]->decode_at_most(cur, limits[i]);
        cur = held.span();
      }
      b2b[0]->decode_into(cur, out);
    } catch (const Error& e) {
      throw e.with_context(context(it.name, ""));
    } catch (const std::exception& e) {
      throw Error(ErrorKind::corrupt_data, e.what(), context(it.name, ""));
    }
  }

  void gds_read(const std::string& key, std::byte* dst, std::uint64_t offset, std::uint64_t length) {
    try {
      const store::DeviceReadInto read{key, offset, length, dst};
      device_reader_->read_into_device(std::span(&read, 1));
    } catch (const Error& e) {
      throw e.with_context(context(key, ""));
    }
  }

  struct Descriptors {
    std::uint64_t boxes = 0, in_ptrs = 0, in_sizes = 0, out_ptrs = 0, out_caps = 0, bytes_items = 0, array_items = 0;
    std::uint64_t tiles = 0;
    codec::DeviceChunkNeeds needs{true};  // the batch's chunks' (measure_needs)
  };

  // Writes the batch's descriptors into the start of the pinned slot (they
  // travel with the data in the one copy).
  Descriptors describe(const std::vector<ReadItem>& items, const BatchLayout& L, std::byte* pinned, std::byte* dev,
                       InFlight& flight) {
    const std::size_t n = items.size();
    Descriptors d;
    std::uint64_t at = 0;
    auto take = [&](std::uint64_t bytes) { const std::uint64_t o = at; at += (bytes + 15) / 16 * 16; return o; };
    d.boxes = take(n * sizeof(gpu::PlaceBox));
    d.in_ptrs = take(L.decoder_items * 8);
    d.in_sizes = take(L.decoder_items * 8);
    d.out_ptrs = take(L.decoder_items * 8);
    d.out_caps = take(L.decoder_items * 8);
    d.bytes_items = take(L.bytes_step_items * sizeof(codec::DeviceBytesItem));
    d.array_items = take(L.array_step_items * sizeof(codec::DeviceArrayItem));
    if (at > L.descriptors) throw Error(ErrorKind::internal, "device read: descriptor region overflow");

    auto* boxes = reinterpret_cast<gpu::PlaceBox*>(pinned + d.boxes);
    auto* in_ptrs = reinterpret_cast<const void**>(pinned + d.in_ptrs);
    auto* in_sizes = reinterpret_cast<std::size_t*>(pinned + d.in_sizes);
    auto* out_ptrs = reinterpret_cast<void**>(pinned + d.out_ptrs);
    auto* out_caps = reinterpret_cast<std::size_t*>(pinned + d.out_caps);
    auto* bytes_items = reinterpret_cast<codec::DeviceBytesItem*>(pinned + d.bytes_items);
    auto* array_items = reinterpret_cast<codec::DeviceArrayItem*>(pinned + d.array_items);
    flight.decoded.clear();
    flight.expected = chain_.decoded_bytes;
    flight.codecs = chain_.gpu_codecs;
    flight.decoder = chain_.decoder;

    const std::size_t ndim = plan_.chunk_shape().size();
    std::vector<std::uint64_t> count(ndim);
    std::vector<std::int64_t> src_stride(ndim), out_stride(ndim);
    const auto& out_strides = plan_.out_strides();
    std::size_t zi = 0, si = 0, di = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const ReadItem& it = items[i];
      const ItemPlacement& p = L.items[i];
      gpu::PlaceBox b;
      std::uint64_t src_first = 0, out_first = 0;
      for (std::size_t dd = 0; dd < ndim; ++dd) {
        const DimMapping& m = it.chunk.dims[dd];
        count[dd] = m.count;
        src_stride[dd] = m.chunk_step * chain_.src_strides[dd];
        out_stride[dd] = static_cast<std::int64_t>(out_strides[dd]);
        src_first += m.chunk_first * static_cast<std::uint64_t>(chain_.src_strides[dd]);
        out_first += m.out_first * out_strides[dd];
      }
      if (!gpu::collapse_box(count, src_stride, out_stride, b)) {
        throw Error(ErrorKind::unsupported, "more than 8 non-contiguous dimensions in one chunk's selection",
                    context(it.name, ""));
      }
      b.src_first = src_first;
      b.out_first = out_first;
      b.src_offset = it.missing ? gpu::kFillSource : p.decoded;
      b.swap = (it.missing || chain_.mode == Mode::cpu || chain_.array_step) ? 0 : chain_.swap;
      boxes[i] = b;
      if (it.missing) continue;
      if (chain_.mode == Mode::gpu && chain_.decoder) {
        in_ptrs[zi] = dev + p.device_in;
        in_sizes[zi] = it.length;
        if (p.pinned_in == ItemPlacement::none) d.needs.known = false;  // a GDS read: never on the host
        out_ptrs[zi] = dev + p.decoder_out;
        out_caps[zi] = chain_.decoded_bytes;
        flight.decoded.push_back(i);
        ++zi;
        if (chain_.bytes_step) bytes_items[si++] = codec::DeviceBytesItem{p.decoder_out, p.decoded, chain_.decoded_bytes};
      }
      if (chain_.array_step) array_items[di++] = codec::DeviceArrayItem{p.decoded, chain_.decoded_bytes / size_of(codec_chain_.chunk().data_type)};
    }
    d.tiles = gpu::assign_tiles(std::span(boxes, n), gpu::place_tile_elements(plan_.element_size()));
    if (d.needs.known) d.needs = measure_needs(items, L, pinned);
    return d;
  }

  // Where the decoder's temp budget cannot hold the batch's worst case in
  // one wave (a memory-bounded read), its scratch is laid out for what the
  // frames need, measured on the host on the very bytes copied to the
  // device: a wave then holds ~3x the chunks. Otherwise the worst case, as
  // no measuring (which reads every block header, on the pool) pays there.
  codec::DeviceChunkNeeds measure_needs(const std::vector<ReadItem>& items, const BatchLayout& L, const std::byte* pinned) {
    if (!chain_.decoder || chain_.decoder->whole_batch_fits(L.decoder_items, chain_.decoded_bytes, decoder_temp_budget()))
      return {};
    std::vector<std::size_t> present;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (!items[i].missing) present.push_back(i);
    std::vector<codec::DeviceChunkNeeds> each(present.size());
    parallel_for(present.size(), [&](std::size_t k) {
      const std::size_t i = present[k];
      each[k] = chain_.decoder->measure(std::span<const std::byte>(pinned + L.items[i].pinned_in, items[i].length),
                                        chain_.decoded_bytes);
    });
    codec::DeviceChunkNeeds needs{true};
    for (const codec::DeviceChunkNeeds& n : each) needs.add(n);
    return needs;
  }

  std::size_t decoder_temp_budget() const {
    return config_.temp_bytes ? config_.temp_bytes : chain_.decoder->default_temp_budget(config_.scratch_bytes);
  }

  void enqueue(std::size_t k, SlotResources& slot, const BatchLayout& L, const Descriptors& d, std::byte* pinned,
               std::byte* dev) {
    const cudaStream_t s = slot.stream.get();
    slot.start.record(s);
    ZARRGPU_CUDA_CHECK(cudaMemcpyAsync(dev, pinned, L.copy_bytes, cudaMemcpyHostToDevice, s));
    lease_->ring.release(k, s);
    slot.copied.record(s);
    const std::size_t nz = L.decoder_items;
    if (nz) {
      // The decoder's scratch up to its budget (default_temp_budget(), a
      // multiple of the batch's decoded scratch): what the batch's chunks
      // need as measured in describe(), up to that.
      const std::size_t budget = decoder_temp_budget();
      const std::size_t temp = chain_.decoder->temp_bytes(nz, chain_.decoded_bytes, budget, d.needs);
      slot.temp.reserve(temp);
      codec::DeviceBatch batch;
      batch.in_ptrs = reinterpret_cast<const void* const*>(dev + d.in_ptrs);
      batch.in_sizes = reinterpret_cast<const std::size_t*>(dev + d.in_sizes);
      batch.out_ptrs = reinterpret_cast<void* const*>(dev + d.out_ptrs);
      batch.out_capacities = reinterpret_cast<const std::size_t*>(dev + d.out_caps);
      batch.out_sizes = reinterpret_cast<std::size_t*>(dev + L.decoder_sizes);
      batch.statuses = reinterpret_cast<std::uint32_t*>(dev + L.decoder_statuses);
      batch.chunks = nz;
      batch.max_decoded_bytes = chain_.decoded_bytes;
      batch.temp_budget = budget;
      batch.needs = d.needs;
      batch.verify_checksum = options_.verify_checksums;
      chain_.decoder->decode_async(batch, slot.temp.data(), temp, s);
      slot.results.reserve(nz * (sizeof(std::uint64_t) + sizeof(std::uint32_t)));
      ZARRGPU_CUDA_CHECK(cudaMemcpyAsync(slot.results.data(), dev + L.decoder_sizes, nz * sizeof(std::uint64_t),
                                         cudaMemcpyDeviceToHost, s));
      ZARRGPU_CUDA_CHECK(cudaMemcpyAsync(slot.results.data() + nz * sizeof(std::uint64_t), dev + L.decoder_statuses,
                                         nz * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, s));
    }
    if (L.bytes_step_items) {
      chain_.bytes_step->decode_async(reinterpret_cast<const codec::DeviceBytesItem*>(dev + d.bytes_items),
                                      static_cast<std::uint32_t>(L.bytes_step_items), chain_.decoded_bytes, dev, dev, s);
    }
    if (L.array_step_items) {
      chain_.array_step->decode_async(reinterpret_cast<const codec::DeviceArrayItem*>(dev + d.array_items),
                                      static_cast<std::uint32_t>(L.array_step_items), dev,
                                      static_cast<unsigned>(plan_.element_size()), chain_.swap, s);
    }
    slot.decoded.record(s);
    gpu::PlaceLaunch launch;
    launch.boxes = reinterpret_cast<const gpu::PlaceBox*>(dev + d.boxes);
    launch.num_boxes = static_cast<std::uint32_t>(L.items.size());
    launch.num_tiles = d.tiles;
    launch.src = dev;
    launch.out = out_;
    launch.element_size = static_cast<unsigned>(plan_.element_size());
    launch.fill = fill_;
    gpu::place(launch, s);
    slot.placed.record(s);
    slot.pending = true;
    (void)pinned;
  }

  const Array& array_;
  const Plan& plan_;
  std::byte* out_;
  const ReadOptions& options_;
  DeviceReadStats& stats_;
  gpu::StagingConfig config_;
  ItemSource source_;
  const codec::CodecChain& codec_chain_;
  const codec::BatchedDeviceDecoder* decoder_;  // of a bytes->bytes codec of the chain (nullptr: none)
  DecoderChoice choice_;                        // Config's, for that decoder
  const DeviceChain gpu_chain_;  // the batched decoder on the GPU where the chain allows it
  const DeviceChain cpu_chain_;  // bytes->bytes codecs on CPU threads
  DeviceChain chain_;            // the current batch's: one of the two
  bool switchable_ = false;      // the two differ and the rule picks per batch
  codec::DecodeResources resources_;
  ResourceLease lease_;
  std::vector<InFlight> in_flight_;
  std::deque<ReadItem> returned_;  // handed back by the GPU decoder, for CPU threads
  gpu::Vec16 fill_;
  store::IoPath io_ = store::IoPath::posix;
  store::DeviceReader* device_reader_ = nullptr;  // the store, when it reads into device memory
  const std::uint64_t readahead_bytes_ = store::readahead_bytes();
  std::size_t hinted_ = 0;  // items at the front of `pending` already hinted
  bool hints_off_ = false;  // the store has no use for hints
};

}  // namespace

void run_pipeline(const Array& array, const Plan& plan, std::byte* out, int device, const ReadOptions& options,
                  DeviceReadStats& stats) {
  Reader reader(array, plan, out, device, options, stats);
  reader.run();
}

void prepare_pipeline_resources(int device) {
  // The lease's end hands the set to the pool, where the first read finds it.
  ResourceLease lease(device, staging_config(device));
}

void release_pipeline_resources() { release_pooled_resources(); }

}  // namespace zarrgpu::engine::device_read
