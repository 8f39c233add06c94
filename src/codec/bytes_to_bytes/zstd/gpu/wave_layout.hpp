// The block-parallel decoder's scratch, wave by wave (host arithmetic, no
// CUDA: dispatch_decompress.cu sizes and carves the temp with it, and the
// host tests check it): what one chunk of a wave takes, how many chunks a
// temp holds, and how a batch is cut into waves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "codec/bytes_to_bytes/zstd/decoder/block_execution.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/block_sections.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/policy.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"

namespace zarrgpu::zstd::gpu {

inline constexpr uint64_t align_up(uint64_t v) { return (v + 255) & ~uint64_t{255}; }

// Scratch of one chunk in a wave, and the record counts it is carved for.
struct WaveLayout {
  uint64_t max_chunk_bytes;
  uint32_t max_frames;
  uint32_t max_blocks;
  uint64_t literals_per_chunk;  // Huffman literal bytes a chunk may hand out (the walk's limit)
  uint64_t triples_per_chunk;   // sequences a chunk may hand out (likewise)

  // The worst case for chunks of up to max_uncompressed bytes.
  explicit WaveLayout(size_t max_uncompressed)
      : max_chunk_bytes(max_uncompressed),
        max_frames(BlockParallelPolicySm90::kMaxFrames),
        max_blocks(static_cast<uint32_t>(max_uncompressed / BlockParallelPolicySm90::kBytesPerBlockSlot) +
                   BlockParallelPolicySm90::kExtraBlockSlots),
        literals_per_chunk(max_uncompressed),
        triples_per_chunk(max_uncompressed / 3) {}
  // Sized for chunks that need at most `needs` (never more than the worst
  // case): a chunk whose walk finds more decodes on the one-warp path.
  WaveLayout(size_t max_uncompressed, const ChunkNeeds& needs) : WaveLayout(max_uncompressed) {
    // Rounded up so that each chunk's arrays start 256-byte aligned (64
    // triples are 3 x 256 bytes), as the worst-case strides of the bench's
    // chunks do: warps read triples and literals in whole cache lines.
    const uint64_t literals = (needs.literal_bytes + 255) & ~uint64_t{255};
    const uint64_t triples = (needs.sequences + 63) & ~uint64_t{63};
    if (literals < literals_per_chunk) literals_per_chunk = literals;
    if (triples < triples_per_chunk) triples_per_chunk = triples;
  }
  uint64_t plans(uint64_t chunks) const { return align_up(chunks * sizeof(ChunkPlan)); }
  uint64_t frames(uint64_t chunks) const { return align_up(chunks * max_frames * sizeof(FrameRecord)); }
  uint64_t blocks(uint64_t chunks) const { return align_up(chunks * max_blocks * sizeof(BlockRecord)); }
  uint64_t literals(uint64_t chunks) const { return align_up(chunks * literals_per_chunk); }
  uint64_t triples(uint64_t chunks) const { return align_up(chunks * triples_per_chunk * sizeof(SequenceTriple)); }
  uint64_t granules_per_chunk() const { return granule_entries(max_chunk_bytes); }
  uint64_t granules(uint64_t chunks) const { return align_up(chunks * granules_per_chunk() * sizeof(GranuleEntry)); }
  uint64_t entropy(uint64_t chunks) const { return align_up(chunks * max_blocks * sizeof(BlockEntropy)); }
  // Sequence decoding's checkpoints for offset resolution (a 32-byte entry per 32 sequences: ~0.33 bytes
  // an output byte at most, ~6% of a chunk's scratch).
  uint64_t checkpoints(uint64_t chunks) const {
    return align_up(chunks * checkpoints_per_chunk(triples_per_chunk, max_blocks) * sizeof(ResolutionCheckpoint));
  }
  // The walk's list of blocks, and each weight class's; sequence decoding's order of
  // each class's list (a wave that is not split uses class 0's: a wave
  // runs either its own list or its classes').
  uint64_t items(uint64_t chunks) const { return align_up(chunks * max_blocks * sizeof(uint32_t)); }
  uint64_t classes(uint64_t chunks) const { return align_up(chunks); }
  // The walk's counters and each class's, kCounterStride bytes apart:
  // the queues and totals (64 bytes: dispatch_decompress.cu's
  // set_counters), then sequence decoding's order buckets (counts and
  // cursors, kOrderBuckets each).
  static constexpr uint64_t kCounterStride = 512;
  static constexpr uint64_t kCounterBytes = 2048;
  static constexpr uint64_t kOrderBucketsAt = 64;
  static_assert((1 + kWeightClasses) * kCounterStride <= kCounterBytes, "a set of counters per class");
  uint64_t bytes(uint64_t chunks) const {
    return plans(chunks) + frames(chunks) + blocks(chunks) + literals(chunks) + triples(chunks) + granules(chunks) +
           entropy(chunks) + checkpoints(chunks) + (1 + 2 * kWeightClasses) * items(chunks) + classes(chunks) +
           kCounterBytes;
  }
  // Chunks per wave in temp_bytes of scratch (0: not even one fits): the
  // most w with bytes(w) <= temp_bytes, so that a temp sized by bytes(n)
  // holds n chunks (bytes(1) pads each array once, bytes(n) once for all n:
  // temp_bytes / bytes(1) alone can come out one short).
  uint64_t wave_chunks(uint64_t temp_bytes, uint64_t num_chunks) const {
    uint64_t cap = num_chunks;
    if (cap > 0xFFFFFFFFull / max_blocks) cap = 0xFFFFFFFFull / max_blocks;  // block slots are 32-bit
    uint64_t w = temp_bytes / bytes(1);
    if (w > cap) w = cap;
    while (w > 0 && bytes(w) > temp_bytes) --w;  // alignment padding
    while (w < cap && bytes(w + 1) <= temp_bytes) ++w;
    return w;
  }
};

// What chunk src[0, size) needs of a wave laid out as `layout` (its worst
// case), by the walk the decoder runs on the device over the same bytes
// (headers only; never reads past src + size). A chunk the block-parallel
// path would not take anyway (corrupt, or past the layout's records) needs
// nothing of it.
inline ChunkNeeds measure_chunk_needs(const uint8_t* src, size_t size, const WaveLayout& layout) {
  ChunkPlan plan;
  walk_chunk(src, size, chunk_limits(layout.max_chunk_bytes, layout.max_frames, layout.max_blocks), &plan, nullptr,
             nullptr);
  if (!plan.block_parallel) return {};
  return {plan.literals_bytes, plan.triples};
}

// Sequence decoding takes a list's blocks longest chain first (agent_block_parallel.cuh's
// count_order, place_order): a block's bucket by its sequence count, half an octave
// wide, 0 for the most sequences, kOrderBuckets - 1 for none.
inline constexpr uint32_t kOrderBuckets = 32;
ZARRGPU_HD_INLINE uint32_t order_bucket(uint32_t sequences) {
  if (sequences == 0) return kOrderBuckets - 1;
  const uint32_t log = highbit32(sequences);
  const uint32_t half = log == 0 ? 0u : (sequences >> (log - 1)) & 1u;
  const uint32_t v = 2 * log + half;  // grows with sequences
  constexpr uint32_t kTop = kOrderBuckets - 2;
  return kTop - (v < kTop ? v : kTop);
}
static_assert(WaveLayout::kOrderBucketsAt + 2 * kOrderBuckets * sizeof(uint32_t) <= WaveLayout::kCounterStride,
              "sequence decoding's order buckets fit a set of counters");

// Chunks per wave for a batch of num_chunks when the temp holds `room` of
// them (0 < room < num_chunks). Waves are as few as the room allows, and
// among the sizes that keep them so, the one whose waves take the fewest
// Huffman decoding/sequence decoding rounds of round_blocks blocks (a serial chain per lane: a wave a
// few blocks past a round costs a whole second round; blocks estimated as
// libzstd writes them, 128 KiB each): whole rounds, the room filled, or
// equal waves, these on a tie (16 chunks in a temp for 12 run as 8 + 8,
// not as 12 + a last wave that leaves most of the chip idle).
// 2,048 chunks of 1 MiB in room for ~1,400, rounds of 792 chunks (sequence decoding's 13
// lanes), GB/s at levels 1 / 3 / 9: whole rounds, 792 + 792 + 464
// (3 waves, 3 rounds): 161.1 / 90.3 / 67.5; equal, 1,024 + 1,024 (2 waves,
// 4 rounds): 136.6 / 98.1 / 72.4 (bench/gpu/zstd.sh). Filled, ~1,400 + ~650 (2 waves, 3 rounds), against equal:
// level 1 1 MiB +14.9%, 4 MiB +13.4%, levels 3 and 9 within -0.2..+1.9%
// (ab_many.sh, 2 GiB rows).
inline uint64_t cut_waves(uint64_t room, uint64_t num_chunks, uint64_t max_chunk_bytes, uint64_t round_blocks) {
  const uint64_t typical = BlockParallelPolicySm90::kTypicalBlockBytes;
  const uint64_t per_chunk = (max_chunk_bytes + typical - 1) / typical;
  const uint64_t round_chunks = per_chunk == 0 ? 0 : round_blocks / per_chunk;
  const uint64_t fewest = (num_chunks + room - 1) / room;
  const uint64_t equal = (num_chunks + fewest - 1) / fewest;
  if (round_chunks == 0) return equal;
  auto rounds = [&](uint64_t w) {
    const uint64_t rest = num_chunks % w;
    return num_chunks / w * ((w + round_chunks - 1) / round_chunks) + (rest + round_chunks - 1) / round_chunks;
  };
  uint64_t best = equal;
  const uint64_t whole = room / round_chunks * round_chunks;
  for (const uint64_t w : {whole, room}) {
    if (w != 0 && (num_chunks + w - 1) / w == fewest && rounds(w) < rounds(best)) best = w;
  }
  return best;
}

// The scratch get_decompress_temp_size() asks for at most, by default, for
// chunks of up to max_chunk_bytes (policy.cuh's kWaveTempBytes): more
// where each wave ends in long serial chains.
inline uint64_t default_wave_temp_bytes(uint64_t max_chunk_bytes) {
  using P = BlockParallelPolicySm90;
  return max_chunk_bytes > P::kLongChainMinChunkBytes ? P::kLongChainWaveTempBytes : P::kWaveTempBytes;
}

// How a batch of num_chunks runs in temp_bytes of scratch, once one wave
// does not hold it (dispatch_decompress.cu): chunks a wave, and lanes. With
// two_lanes allowed and room for a chunk in each half of the temp, the
// waves alternate between two lanes (streams), each with its own half:
// lane 0's scratch at the temp's start, lane 1's at bytes(wave), both
// within temp_bytes. Waves are cut as cut_waves() cuts them in the room
// of one lane.
struct WavePlan {
  uint64_t wave;    // chunks a wave (every wave but the last)
  uint32_t lanes;   // 1 or 2
};
inline WavePlan plan_waves(const WaveLayout& layout, uint64_t temp_bytes, uint64_t num_chunks,
                           uint64_t round_blocks, bool two_lanes) {
  const uint64_t room = layout.wave_chunks(temp_bytes, num_chunks);
  if (room == 0 || room >= num_chunks) return {room, 1};
  const uint64_t lane_room = two_lanes ? layout.wave_chunks(temp_bytes / 2, num_chunks) : 0;
  const uint32_t lanes = lane_room != 0 ? 2u : 1u;
  return {cut_waves(lanes == 2 ? lane_room : room, num_chunks, layout.max_chunk_bytes, round_blocks), lanes};
}

}  // namespace zarrgpu::zstd::gpu
