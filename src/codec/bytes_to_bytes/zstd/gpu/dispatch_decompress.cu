// Launch code of the batched decoder (CUB's "dispatch"): checks arguments,
// picks the policy, enqueues the kernels on the caller's stream.
//
// Two paths (use_block_parallel() picks): one warp per chunk
// (kernel_decompress.cuh), and block parallel (kernel_block_parallel.cuh),
// wave of chunks after wave (docs/zstd-gpu-decoder.md):
//   walk (a thread per chunk, listing its blocks)
//   -> table decoding (a warp per block)
//   -> Huffman decoding (a lane per stream) and sequence decoding (a lane per
//      block, longest chains first where blocks are long), in one launch
//   -> block placement (a warp per chunk) -> offset resolution (a warp, or
//      for long blocks a thread block, per block) -> chunk verdict (a thread
//      per chunk)
//   -> literal copy (a warp per block, in parts for long blocks)
//   -> match copy: by chunk (a warp per chunk, literal copy in the same pass
//      where blocks are long), or by block (cross-block, then in-block match
//      copy, in stages of the chunk for long blocks)
//   -> checksums (a warp per chunk), then the one-warp kernel for the chunks
//      the walk left to it (more records or scratch than the wave has room
//      for: statuses stay exact).
// After table decoding a wave's chunks may split into two weight classes
// (light, heavy: their sequences against the wave's mean) whose later phases
// run side by side on the caller's stream and a second one; a batch of
// several waves may alternate them on two lanes, each with half the temp.
#include <cuda_runtime.h>

#include <cstdio>

#include "codec/bytes_to_bytes/zstd/gpu/kernel_block_parallel.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/kernel_decompress.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/policy.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/wave_layout.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"
#if defined(ZARRGPU_ZSTD_EXPERIMENTS)
#include "experiments.hpp"  // bench/zstd_gpu/: the benchmark's and GPU tests' build only
#endif

namespace zarrgpu::zstd::gpu {

namespace {
using Policy = DecompressPolicySm90;
using BpPolicy = BlockParallelPolicySm90;
// The entropy kernel's shared memory sets its thread blocks per SM: Huffman decoding's
// tables (34 KiB) or sequence decoding's long lanes' fat tables (37 KiB), 6 of either on
// an SM of 228 KiB (1 KiB more a thread block for the driver); sequence decoding's packed
// lanes take as many as fit in that, not more.
static_assert((sizeof(EntropyShared<BpPolicy>) + 1024) * 6 <= 228 * 1024,
              "the entropy kernel's shared memory leaves 6 thread blocks per SM");
static_assert(sizeof(SequenceLanes<PackedSequenceTables, BpPolicy::kSequenceBlocks>) <= sizeof(StreamsShared<BpPolicy>),
              "sequence decoding's packed lanes enlarge the entropy kernel's shared memory");
constexpr size_t kTempBytes = 256;  // the one-warp path's reservation; it uses none

// Thread blocks of `threads` threads of kernel k that the current device
// holds at once (0 when CUDA cannot say).
template <class Kernel>
uint64_t resident_thread_blocks(Kernel k, int threads) {
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, 0) != cudaSuccess) {
    return 0;
  }
  return uint64_t(sms) * uint64_t(per_sm);
}

// Listed blocks that Huffman decoding and sequence decoding run in one round on the current device:
// entropy_kernel's resident thread blocks, each taking kStreamBlocks
// blocks in Huffman decoding's role or kSequenceBlocks (long blocks: kLongSequenceBlocks)
// in sequence decoding's, the smallest. Both roles
// are latency-bound (each lane one long serial chain), so a wave of a few
// more blocks than a round costs a whole second round; waves are sized in
// whole rounds. (A round of both roles resident at once would halve the
// waves: each wave then pays the other phases' tails twice as often.)
uint64_t entropy_round_blocks() {
  constexpr uint64_t per = BpPolicy::kStreamBlocks < BpPolicy::kLongSequenceBlocks ? BpPolicy::kStreamBlocks
                                                                                    : BpPolicy::kLongSequenceBlocks;
  return resident_thread_blocks(entropy_kernel<BpPolicy>, 32) * per;
}

// The grid of a kernel whose thread blocks take at most `units` from a
// queue, or stride over them: twice the thread blocks the device holds at
// once (`resident`), at most one per unit.
uint64_t queue_grid(uint64_t units, uint64_t resident) {
  return resident != 0 && 2 * resident < units ? 2 * resident : units;
}

// The dispatch's choices that the benchmark's build may vary for
// comparisons (bench/zstd_gpu/experiments.hpp); the library's are the
// policy's, fixed at compile time.
struct Choices {
  bool trace = false;         // print each batch's wave plan
  int block_parallel = -1;    // under Strategy::automatic: -1 the rule, 0 never, 1 always
  uint64_t wave_temp_bytes = 0;  // a wave's scratch when the caller leaves it (0: the policy's)
  uint32_t match_stages = 0;     // match copy's stages (0: the policy's rule)
  MatchMode match_mode = MatchMode::automatic;
  bool weight_classes = true;
  bool wave_lanes = true;
};

Choices choices() {
#if defined(ZARRGPU_ZSTD_EXPERIMENTS)
  const experiments::Settings e = experiments::current();
  Choices c;
  c.trace = e.trace;
  c.block_parallel = e.block_parallel;
  c.wave_temp_bytes = e.wave_temp_bytes;
  c.match_stages = e.match_stages;
  c.match_mode = e.match_copy == experiments::MatchCopy::by_chunk   ? MatchMode::by_chunk
                 : e.match_copy == experiments::MatchCopy::by_block ? MatchMode::by_block
                                                                    : MatchMode::automatic;
  c.weight_classes = e.weight_classes;
  c.wave_lanes = e.wave_lanes;
  return c;
#else
  return Choices{};
#endif
}

// A wave's scratch for chunks of up to max_chunk_bytes: the caller's
// bound, else the policy's for that chunk bound.
uint64_t wave_budget(const DecompressOptions& options, uint64_t max_chunk_bytes) {
  if (options.wave_temp_bytes != 0) return options.wave_temp_bytes;
  if (const uint64_t fixed = choices().wave_temp_bytes; fixed != 0) return fixed;
  return default_wave_temp_bytes(max_chunk_bytes);
}

// The wave layout for chunks of up to max_chunk_bytes: for the needs the
// caller measured, else for the worst case.
WaveLayout wave_layout(const DecompressOptions& options, uint64_t max_chunk_bytes) {
  return options.chunk_needs_known ? WaveLayout(max_chunk_bytes, options.chunk_needs) : WaveLayout(max_chunk_bytes);
}

// Kernel k on `blocks` thread blocks of `threads` (none: nothing to launch).
template <class Kernel, class... Args>
Result launch(Kernel k, uint64_t blocks, uint32_t threads, cudaStream_t stream, Args... args) {
  if (blocks == 0) return kSuccess;
  if (blocks > 0x7FFFFFFFull) return kInvalidArgument;
  k<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(args...);
  return static_cast<Result>(cudaGetLastError());
}

// Kernel k with a thread block per `per_block` of `items`.
template <class Kernel>
Result launch_bp(Kernel k, uint64_t items, uint32_t per_block, uint32_t threads, const BlockParallelParams& bp,
                 cudaStream_t stream) {
  return launch(k, (items + per_block - 1) / per_block, threads, stream, bp);
}

// A second stream for a caller's stream, and the events that fork it from
// and join it back to the caller's: a wave's weight classes run on the two
// (decompress_async). One set per host thread, device and caller stream
// (kSets of them; past that, sets are shared, which only adds waits). Made
// outside a stream capture, on first use; a capture that finds none for its
// stream runs its waves unsplit on the caller's stream.
//
// The set also holds the second lane of waves (decompress_async): a stream
// with its own fork and join events, whose waves take the other half of
// the temp.
struct ClassStreams {
  int device = -1;
  cudaStream_t caller = nullptr;
  cudaStream_t helper = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  cudaStream_t lane = nullptr;
  cudaEvent_t lane_fork = nullptr, lane_join = nullptr;
  void release() {
    if (helper != nullptr) cudaStreamDestroy(helper);
    if (fork != nullptr) cudaEventDestroy(fork);
    if (join != nullptr) cudaEventDestroy(join);
    if (lane != nullptr) cudaStreamDestroy(lane);
    if (lane_fork != nullptr) cudaEventDestroy(lane_fork);
    if (lane_join != nullptr) cudaEventDestroy(lane_join);
    helper = nullptr, fork = nullptr, join = nullptr, device = -1;
    lane = nullptr, lane_fork = nullptr, lane_join = nullptr;
  }
  ~ClassStreams() { release(); }
};

// With may_make false (the caller's stream is being captured), only a set
// made before.
const ClassStreams* class_streams(cudaStream_t caller, bool may_make = true) {
  constexpr size_t kSets = 8;
  thread_local ClassStreams sets[kSets];
  thread_local size_t used = 0;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  for (size_t i = 0; i < used; ++i) {
    if (sets[i].device == device && sets[i].caller == caller) return &sets[i];
  }
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (!may_make || cudaStreamIsCapturing(caller, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone) {
    cudaGetLastError();
    return nullptr;
  }
  ClassStreams& cs = sets[used < kSets ? used : reinterpret_cast<uintptr_t>(caller) % kSets];
  if (used >= kSets && cs.device == device) return &cs;  // shared
  cs.release();
  if (cudaStreamCreateWithFlags(&cs.helper, cudaStreamNonBlocking) != cudaSuccess ||
      cudaEventCreateWithFlags(&cs.fork, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&cs.join, cudaEventDisableTiming) != cudaSuccess ||
      cudaStreamCreateWithFlags(&cs.lane, cudaStreamNonBlocking) != cudaSuccess ||
      cudaEventCreateWithFlags(&cs.lane_fork, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&cs.lane_join, cudaEventDisableTiming) != cudaSuccess) {
    cudaGetLastError();
    cs.release();
    return nullptr;
  }
  cs.device = device;
  cs.caller = caller;
  if (used < kSets) ++used;
  return &cs;
}

// Counters of a wave's walk (set 0) or of weight class k (set k + 1).
void set_counters(BlockParallelParams& bp, uint8_t* counters, uint32_t set) {
  uint8_t* at = counters + set * WaveLayout::kCounterStride;
  bp.item_count = reinterpret_cast<uint32_t*>(at);
  bp.plain_count = reinterpret_cast<uint32_t*>(at + 4);
  bp.cross_queue = reinterpret_cast<unsigned long long*>(at + 8);
  bp.literals_queue = reinterpret_cast<uint32_t*>(at + 16);
  bp.sequence_total = reinterpret_cast<unsigned long long*>(at + 24);
  bp.literal_total = reinterpret_cast<unsigned long long*>(at + 40);
  bp.chunk_queue = reinterpret_cast<uint32_t*>(at + 48);
  bp.order_counts = reinterpret_cast<uint32_t*>(at + WaveLayout::kOrderBucketsAt);
  bp.order_cursors = bp.order_counts + kOrderBuckets;
}

// Grids of the phases after table decoding that depend on the device, not on the wave.
struct PhaseGrids {
  uint64_t cross_resident, literals_resident, resolve_resident;
  uint64_t chunks_resident;  // Match copy by chunk's with small batches (the fewer of its two kernels')
};

// The phases after table decoding (Huffman decoding/sequence decoding to the checksums) of bp's
// blocks on stream s:
// a whole wave, or one weight class of it.
Result enqueue_after_tables(const BlockParallelParams& bp, const PhaseGrids& g, cudaStream_t s) {
  const uint32_t warps = BpPolicy::kWarpsPerBlock, part_threads = BpPolicy::kPartWarps * 32;
  const uint64_t n = bp.wave_chunks, slots = n * bp.max_blocks;
  // Cross-block match copy: parts of the listed blocks from a queue, at most a thread block per
  // part of a slot.
  const uint64_t cross = queue_grid(slots * BpPolicy::kCrossParts, g.cross_resident);
  // Thread blocks for both roles over the wave's block slots (the list is shorter).
  const uint64_t stream_grid = (slots + BpPolicy::kStreamBlocks - 1) / BpPolicy::kStreamBlocks;
  const uint64_t sequence_grid = (slots + BpPolicy::kLongSequenceBlocks - 1) / BpPolicy::kLongSequenceBlocks;
  // Sequence decoding's order of the listed blocks, longest chains first.
  const uint32_t walk = BpPolicy::kWalkThreads;
  Result r = launch_bp(count_order_kernel<BpPolicy>, slots, walk, walk, bp, s);
  if (r == kSuccess) r = launch_bp(place_order_kernel<BpPolicy>, slots, walk, walk, bp, s);
  if (r == kSuccess) r = launch(entropy_kernel<BpPolicy>, stream_grid + sequence_grid, 32, s, bp);
  if (r == kSuccess) r = launch_bp(place_kernel<BpPolicy>, n, warps, BpPolicy::kThreads, bp, s);
  if (r == kSuccess) r = launch_bp(resolve_kernel<BpPolicy>, slots, warps, BpPolicy::kThreads, bp, s);
  if (r == kSuccess) {
    r = launch(resolve_parts_kernel<BpPolicy>, queue_grid(slots, g.resolve_resident), part_threads, s, bp);
  }
  if (r == kSuccess) r = launch_bp(verdict_kernel<BpPolicy>, n, BpPolicy::kWalkThreads, BpPolicy::kWalkThreads, bp, s);
  if (r == kSuccess) r = launch_bp(literals_kernel<BpPolicy>, slots, warps, BpPolicy::kThreads, bp, s);
  if (r == kSuccess) {
    r = launch(literals_parts_kernel<BpPolicy>, queue_grid(slots, g.literals_resident), part_threads, s, bp);
  }
  // Match copy stage by stage (the kernels of a stage past the wave's count leave
  // at once); cross-block match copy's queue anew for each.
  for (uint32_t stage = 0; r == kSuccess && stage < bp.match_stages_max; ++stage) {
    BlockParallelParams st = bp;
    st.match_stage = stage;
    if (stage > 0) {
      r = static_cast<Result>(cudaMemsetAsync(bp.cross_queue, 0, sizeof(*bp.cross_queue), s));
    }
    if (r == kSuccess) r = launch_bp(cross_kernel<BpPolicy>, cross, 1, BpPolicy::kCrossWarps * 32, st, s);
    if (r == kSuccess) r = launch_bp(execute_kernel<BpPolicy>, slots, warps, BpPolicy::kThreads, st, s);
  }
  // Match copy by chunk after literal copy, or with literal copy in its pass (kernel_block_parallel.cuh's
  // literals_with_matches: the device's choice); batches by the chunk bound; with the
  // small ones each warp takes the wave's chunks from a queue (at most the
  // thread blocks the device holds, twice), else a warp per chunk
  // (for_each_chunk).
  constexpr uint32_t kSmall = BpPolicy::kSmallChunkBatchSequences, kLarge = BpPolicy::kChunkBatchSequences;
  static_assert(chunks_queued<BpPolicy, kSmall>() && !chunks_queued<BpPolicy, kLarge>(), "the grids below");
  const bool small = bp.max_chunk_bytes <= BpPolicy::kSmallChunkBatchMaxChunkBytes;
  const uint32_t threads = BpPolicy::kThreads;
  const uint64_t chunk_grid = small ? queue_grid((n + warps - 1) / warps, g.chunks_resident) : (n + warps - 1) / warps;
  if (r == kSuccess) {
    r = small ? launch(execute_chunks_kernel<BpPolicy, kSmall>, chunk_grid, threads, s, bp)
              : launch(execute_chunks_kernel<BpPolicy, kLarge>, chunk_grid, threads, s, bp);
  }
  if (r == kSuccess) {
    r = small ? launch(write_chunks_kernel<BpPolicy, kSmall>, chunk_grid, threads, s, bp)
              : launch(write_chunks_kernel<BpPolicy, kLarge>, chunk_grid, threads, s, bp);
  }
  if (r == kSuccess) r = launch_bp(finish_kernel<BpPolicy>, n, warps, BpPolicy::kThreads, bp, s);
  return r;
}
}  // namespace

bool use_block_parallel(size_t num_chunks, const DecompressOptions& options) {
  if (options.max_uncompressed_chunk_bytes == 0 || num_chunks == 0) return false;
  switch (options.strategy) {
    case Strategy::one_warp: return false;
    case Strategy::block_parallel: return true;
    case Strategy::automatic: break;
  }
  if (const int fixed = choices().block_parallel; fixed >= 0) return fixed == 1;
  return options.max_uncompressed_chunk_bytes >= kBlockParallelMinChunkBytes;
}

Result get_decompress_temp_size(size_t num_chunks, size_t max_uncompressed_chunk_bytes,
                                const DecompressOptions& options, size_t* temp_bytes) {
  if (temp_bytes == nullptr) return kInvalidArgument;
  if (num_chunks == 0) {
    *temp_bytes = 0;
    return kSuccess;
  }
  // As decompress_async decides: block parallel only with the chunk bound in the options.
  if (!use_block_parallel(num_chunks, options) || max_uncompressed_chunk_bytes == 0) {
    *temp_bytes = kTempBytes;
    return kSuccess;
  }
  const WaveLayout layout = wave_layout(options, max_uncompressed_chunk_bytes > options.max_uncompressed_chunk_bytes
                                                    ? max_uncompressed_chunk_bytes
                                                    : options.max_uncompressed_chunk_bytes);
  uint64_t wave = layout.wave_chunks(wave_budget(options, layout.max_chunk_bytes), num_chunks);
  if (wave == 0) wave = 1;  // one chunk larger than a wave's budget still gets its scratch
  *temp_bytes = static_cast<size_t>(layout.bytes(wave));
  return kSuccess;
}

ChunkNeeds measure_chunk_needs(const void* src, size_t size, size_t max_uncompressed_chunk_bytes) {
  return measure_chunk_needs(static_cast<const uint8_t*>(src), size, WaveLayout(max_uncompressed_chunk_bytes));
}

Result get_decompress_temp_size(size_t num_chunks, size_t max_uncompressed_chunk_bytes, size_t* temp_bytes) {
  return get_decompress_temp_size(num_chunks, max_uncompressed_chunk_bytes, DecompressOptions{}, temp_bytes);
}

Result decompress_async(const void* const* d_in_ptrs, const size_t* d_in_sizes, void* const* d_out_ptrs,
                        const size_t* d_out_capacities, size_t* d_out_sizes, Status* d_statuses, size_t num_chunks,
                        void* d_temp, size_t temp_bytes, const DecompressOptions& options, void* stream) {
  if (num_chunks == 0) return kSuccess;
  if (!d_in_ptrs || !d_in_sizes || !d_out_ptrs || !d_out_capacities || !d_out_sizes || !d_statuses) {
    return kInvalidArgument;
  }
  if (temp_bytes < kTempBytes || d_temp == nullptr) return kInvalidArgument;
  const auto s = static_cast<cudaStream_t>(stream);
  DecompressParams params{d_in_ptrs, d_in_sizes, d_out_ptrs, d_out_capacities, d_out_sizes,
                          d_statuses, num_chunks, options.verify_checksum, 0, nullptr};
  // Block parallel as get_decompress_temp_size decided, if the temp holds
  // one chunk's scratch (a temp asked for more chunks may have been sized
  // for the one-warp path).
  const WaveLayout layout = wave_layout(options, options.max_uncompressed_chunk_bytes);
  const uint64_t room = use_block_parallel(num_chunks, options) ? layout.wave_chunks(temp_bytes, num_chunks) : 0;
  if (room == 0) {
    return launch(decompress_kernel<Policy>, (num_chunks + Policy::kWarpsPerBlock - 1) / Policy::kWarpsPerBlock,
                  Policy::kThreads, s, params);
  }
  const Choices choice = choices();
  // Weight classes: the phases after table decoding of the light chunks (as
  // many sequences as the wave's mean or fewer) and of the heavy ones on two
  // streams, so that the light chunks' later phases run while the heavy
  // chunks' sequence decoding, the wave's longest chains, still decodes
  // (measured: bench/results/zstd_gpu_history.md, v15).
  const ClassStreams* cs = options.weight_classes && choice.weight_classes ? class_streams(s) : nullptr;
  // Lanes of waves: a batch that needs several waves runs them on two lanes,
  // each with half the temp and a stream of its own (the caller's, and the
  // class streams' lane), so that one wave's serial tail (match copy by
  // chunk: a chain of batches a chunk) runs beside the next wave's wide
  // phases; only where match copy may run by chunk, the tail they were made
  // for (measured: bench/results/zstd_gpu_history.md, v23 and v25).
  // Several waves are cut in whole Huffman decoding/sequence decoding rounds where they can be
  // (wave_layout.hpp's plan_waves).
  // The chunk bound up to which match copy may run by chunk (kernel_block_parallel.cuh's matches_by_chunk).
  const bool matches_by_chunk_bound = layout.max_chunk_bytes <= BpPolicy::kMatchesByChunkMaxChunkBytes;
  const uint64_t round = room < num_chunks ? entropy_round_blocks() : 0;
  const WavePlan plan =
      plan_waves(layout, temp_bytes, num_chunks, round, cs != nullptr && choice.wave_lanes && matches_by_chunk_bound);
  const uint64_t wave = plan.wave;
  const uint32_t lanes = plan.lanes;
  if (room < num_chunks && choice.trace) {
    std::fprintf(stderr,
                 "zarrgpu zstd: %zu chunks, temp for %llu, rounds of %llu blocks: waves of %llu chunks, %u lane(s)\n",
                 num_chunks, static_cast<unsigned long long>(room), static_cast<unsigned long long>(round),
                 static_cast<unsigned long long>(wave), lanes);
  }

  // Block parallel, one wave of chunks after the other on each lane.
  BlockParallelParams bp{};
  bp.max_chunk_bytes = layout.max_chunk_bytes;
  bp.max_frames = layout.max_frames;
  bp.max_blocks = layout.max_blocks;
  bp.literals_per_chunk = layout.literals_per_chunk;
  bp.triples_per_chunk = layout.triples_per_chunk;
  bp.weight_class = kEveryClass;
  // Match copy's stages (agent_block_parallel.cuh): launches for one a
  // kMatchStageBytes of a chunk, at most kMatchStages, or for the count fixed.
  bp.match_warps = static_cast<uint32_t>(resident_thread_blocks(execute_kernel<BpPolicy>, BpPolicy::kThreads) *
                                      BpPolicy::kWarpsPerBlock);
  const uint64_t per_size = (layout.max_chunk_bytes + BpPolicy::kMatchStageBytes - 1) / BpPolicy::kMatchStageBytes;
  bp.match_stages_fixed = choice.match_stages;
  const uint64_t launches = bp.match_stages_fixed != 0 ? bp.match_stages_fixed
                            : per_size < BpPolicy::kMatchStages ? per_size
                                                             : BpPolicy::kMatchStages;
  bp.match_stages_max = static_cast<uint32_t>(launches == 0                        ? 1
                                           : launches < BpPolicy::kMaxMatchStages ? launches
                                                                               : BpPolicy::kMaxMatchStages);
  bp.match_stage = 0;
  bp.match_mode = choice.match_mode;
  // Whether every wave's match copy runs by chunk (kernel_block_parallel.cuh's
  // matches_by_chunk): then literal copy builds no granule index and nothing zeroes it.
  // The device's rule also weighs the wave's sequences a block, by a
  // threshold of 0: the chunk bound alone decides, and the host knows it.
  static_assert(BpPolicy::kMatchesByChunkSequences == 0, "the host decides match copy by chunk from the chunk bound alone");
  const bool by_chunk = bp.match_mode == MatchMode::by_chunk || (bp.match_mode == MatchMode::automatic && matches_by_chunk_bound);
  bp.p = params;
  const uint32_t warps = BpPolicy::kWarpsPerBlock, walk = BpPolicy::kWalkThreads;
  const uint32_t part_threads = BpPolicy::kPartWarps * 32;
  constexpr uint32_t kSmall = BpPolicy::kSmallChunkBatchSequences;
  const uint64_t execute_chunks = resident_thread_blocks(execute_chunks_kernel<BpPolicy, kSmall>, BpPolicy::kThreads);
  const uint64_t write_chunks = resident_thread_blocks(write_chunks_kernel<BpPolicy, kSmall>, BpPolicy::kThreads);
  const PhaseGrids grids{resident_thread_blocks(cross_kernel<BpPolicy>, BpPolicy::kCrossWarps * 32),
                         resident_thread_blocks(literals_parts_kernel<BpPolicy>, part_threads),
                         resident_thread_blocks(resolve_parts_kernel<BpPolicy>, part_threads),
                         execute_chunks < write_chunks ? execute_chunks : write_chunks};
  // A lane's scratch for `wave` chunks (layout.bytes(wave), from `at`), its
  // stream and class streams; a class's params are the wave's with its own
  // list, counters and class.
  struct Lane {
    BlockParallelParams bp, by_class[kWeightClasses];
    uint8_t* counters;
    cudaStream_t stream;
    const ClassStreams* cs;
  };
  auto lay_out = [&](uint8_t* at, cudaStream_t stream, const ClassStreams* lane_cs, Lane& l) {
    auto carve = [&at](uint64_t bytes) {
      uint8_t* p = at;
      at += bytes;
      return p;
    };
    l.bp = bp;
    l.bp.plans = reinterpret_cast<ChunkPlan*>(carve(layout.plans(wave)));
    l.bp.frames = reinterpret_cast<FrameRecord*>(carve(layout.frames(wave)));
    l.bp.blocks = reinterpret_cast<BlockRecord*>(carve(layout.blocks(wave)));
    l.bp.literals = carve(layout.literals(wave));
    l.bp.triples = reinterpret_cast<SequenceTriple*>(carve(layout.triples(wave)));
    l.bp.granules = reinterpret_cast<GranuleEntry*>(carve(layout.granules(wave)));
    l.bp.entropy = reinterpret_cast<BlockEntropy*>(carve(layout.entropy(wave)));
    l.bp.checkpoints = reinterpret_cast<ResolutionCheckpoint*>(carve(layout.checkpoints(wave)));
    l.bp.items = reinterpret_cast<uint32_t*>(carve(layout.items(wave)));
    uint32_t* class_items[kWeightClasses];
    uint32_t* class_order[kWeightClasses];
    for (auto& items : class_items) items = reinterpret_cast<uint32_t*>(carve(layout.items(wave)));
    for (auto& order : class_order) order = reinterpret_cast<uint32_t*>(carve(layout.items(wave)));
    l.bp.order = class_order[0];  // a wave runs its own list or its classes', not both
    l.bp.classes = carve(layout.classes(wave));
    l.counters = carve(WaveLayout::kCounterBytes);  // 256-byte aligned
    set_counters(l.bp, l.counters, 0);
    l.bp.wave_item_count = l.bp.item_count;
    for (uint32_t k = 0; k < kWeightClasses; ++k) {
      l.by_class[k] = l.bp;
      l.by_class[k].items = class_items[k];
      l.by_class[k].order = class_order[k];
      l.by_class[k].weight_class = k;
      set_counters(l.by_class[k], l.counters, k + 1);
    }
    l.stream = stream;
    l.cs = lane_cs;
  };
  Lane lane[2];
  lay_out(static_cast<uint8_t*>(d_temp), s, cs, lane[0]);
  Result r = kSuccess;
  if (lanes == 2) {
    // The second lane starts after the work the caller queued before this
    // call; its class streams are its own (none made during a capture: its
    // waves then run unsplit).
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    const bool capturing = cudaStreamIsCapturing(s, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone;
    cudaGetLastError();
    lay_out(static_cast<uint8_t*>(d_temp) + layout.bytes(wave), cs->lane, class_streams(cs->lane, !capturing),
            lane[1]);
    r = static_cast<Result>(cudaEventRecord(cs->lane_fork, s));
    if (r == kSuccess) r = static_cast<Result>(cudaStreamWaitEvent(cs->lane, cs->lane_fork, 0));
    if (r != kSuccess) return r;
  }
  static_assert(kWeightClasses == 2, "classify_kernel takes a light and a heavy class");
  size_t index = 0;
  for (size_t first = 0; r == kSuccess && first < num_chunks; first += wave, ++index) {
    Lane& l = lane[index % lanes];
    const cudaStream_t ls = l.stream;
    const size_t n = num_chunks - first < wave ? num_chunks - first : wave;
    l.bp.first_chunk = first;
    l.bp.wave_chunks = n;
    for (BlockParallelParams& c : l.by_class) c.first_chunk = first, c.wave_chunks = n;
    const uint64_t slots = uint64_t{n} * bp.max_blocks;
    r = static_cast<Result>(cudaMemsetAsync(l.counters, 0, WaveLayout::kCounterBytes, ls));
    // Literal copy sets the bits of the granule index's match ends (block_execution.hpp),
    // for cross-block match copy's walks: none where match copy runs by chunk.
    if (r == kSuccess && !by_chunk) {
      r = static_cast<Result>(
          cudaMemsetAsync(l.bp.granules, 0, n * layout.granules_per_chunk() * sizeof(GranuleEntry), ls));
    }
    if (r == kSuccess) r = launch_bp(walk_kernel<BpPolicy>, n, walk, walk, l.bp, ls);
    if (r == kSuccess) r = launch_bp(tables_kernel<BpPolicy>, slots, warps, BpPolicy::kThreads, l.bp, ls);
    if (l.cs != nullptr && n > 1) {
      if (r == kSuccess) {
        r = launch(classify_kernel<BpPolicy>, (n + walk - 1) / walk, walk, ls, l.bp, l.by_class[0], l.by_class[1]);
      }
      if (r == kSuccess) r = static_cast<Result>(cudaEventRecord(l.cs->fork, ls));
      if (r == kSuccess) r = static_cast<Result>(cudaStreamWaitEvent(l.cs->helper, l.cs->fork, 0));
      for (uint32_t k = kWeightClasses; r == kSuccess && k-- > 0;) {  // the heavy class first
        r = enqueue_after_tables(l.by_class[k], grids, k == 0 ? ls : l.cs->helper);
      }
      if (r == kSuccess) r = static_cast<Result>(cudaEventRecord(l.cs->join, l.cs->helper));
      if (r == kSuccess) r = static_cast<Result>(cudaStreamWaitEvent(ls, l.cs->join, 0));
    } else if (r == kSuccess) {
      r = enqueue_after_tables(l.bp, grids, ls);
    }
    if (r != kSuccess) break;
    // The chunks the walk left to the one-warp kernel.
    DecompressParams rest = params;
    rest.first_chunk = first;
    rest.num_chunks = n;
    rest.plans = l.bp.plans;
    r = launch(decompress_kernel<Policy>, (n + Policy::kWarpsPerBlock - 1) / Policy::kWarpsPerBlock, Policy::kThreads,
               ls, rest);
  }
  if (lanes == 2) {  // the caller's stream waits for the second lane, even after an error
    const Result joined = static_cast<Result>(cudaEventRecord(cs->lane_join, cs->lane));
    const Result waited =
        joined == kSuccess ? static_cast<Result>(cudaStreamWaitEvent(s, cs->lane_join, 0)) : joined;
    if (r == kSuccess) r = waited;
  }
  return r;
}

bool device_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

}  // namespace zarrgpu::zstd::gpu
