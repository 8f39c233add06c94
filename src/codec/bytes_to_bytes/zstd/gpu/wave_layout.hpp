// The block-parallel decoder's scratch, wave by wave (host arithmetic, no
// CUDA: dispatch_decompress.cu sizes and carves the temp with it, and the
// host tests check it): what one chunk of a wave takes, how many chunks a
// temp holds, and how a batch is cut into waves.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/bytes_to_bytes/zstd/decoder/block_execution.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/block_sections.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/policy.cuh"

namespace zarrgpu::zstd::gpu {

inline constexpr uint64_t align_up(uint64_t v) { return (v + 255) & ~uint64_t{255}; }

// Scratch of one chunk in a wave, and the record counts it is carved for.
struct WaveLayout {
  uint64_t max_chunk_bytes;
  uint32_t max_frames;
  uint32_t max_blocks;

  explicit WaveLayout(size_t max_uncompressed)
      : max_chunk_bytes(max_uncompressed),
        max_frames(BlockParallelPolicySm90::kMaxFrames),
        max_blocks(static_cast<uint32_t>(max_uncompressed / BlockParallelPolicySm90::kBytesPerBlockSlot) +
                   BlockParallelPolicySm90::kExtraBlockSlots) {}
  uint64_t plans(uint64_t chunks) const { return align_up(chunks * sizeof(ChunkPlan)); }
  uint64_t frames(uint64_t chunks) const { return align_up(chunks * max_frames * sizeof(FrameRecord)); }
  uint64_t blocks(uint64_t chunks) const { return align_up(chunks * max_blocks * sizeof(BlockRecord)); }
  uint64_t literals(uint64_t chunks) const { return align_up(chunks * max_chunk_bytes); }
  uint64_t triples(uint64_t chunks) const { return align_up(chunks * (max_chunk_bytes / 3) * sizeof(SequenceTriple)); }
  uint64_t granules_per_chunk() const { return granule_entries(max_chunk_bytes); }
  uint64_t granules(uint64_t chunks) const { return align_up(chunks * granules_per_chunk() * sizeof(GranuleEntry)); }
  uint64_t entropy(uint64_t chunks) const { return align_up(chunks * max_blocks * sizeof(BlockEntropy)); }
  uint64_t items(uint64_t chunks) const { return align_up(chunks * max_blocks * sizeof(uint32_t)); }
  static constexpr uint64_t kCounterBytes = 256;
  uint64_t bytes(uint64_t chunks) const {
    return plans(chunks) + frames(chunks) + blocks(chunks) + literals(chunks) + triples(chunks) + granules(chunks) +
           entropy(chunks) + items(chunks) + kCounterBytes;
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

// Chunks per wave for a batch of num_chunks when the temp holds `room` of
// them (0 < room < num_chunks): B2 and B3 run a wave in rounds of
// round_blocks blocks (a serial chain per lane: a wave a few blocks larger
// than a round costs a second round), so waves hold whole rounds where the
// temp has room for one (blocks estimated as libzstd writes them, 128 KiB
// each) and that takes no more waves than the room needs; otherwise they
// are of equal size, as few as the room allows: 16 chunks in a temp for 12
// run as 8 + 8, not as 12 + a last wave that leaves most of the chip idle.
// (A wave more costs more than part of a round: once B3's 13 lanes made a
// round 792 chunks of 1 MiB, 2,048 of them in room for ~1,400 ran as 792 +
// 792 + 464; as 1,024 + 1,024 levels 3 and 9 gained 7-8%, and at 4 MiB
// (3 waves of 198 -> 2 of 256) 9-10%: ab.sh, 2 GiB rows, H200. Level 1
// lost 7-15% at 256 KiB-4 MiB, as two B2 rounds a wave: NOTES.md v13 has
// the rule to try next, fewest waves, then fewest rounds.)
inline uint64_t cut_waves(uint64_t room, uint64_t num_chunks, uint64_t max_chunk_bytes, uint64_t round_blocks) {
  const uint64_t typical = BlockParallelPolicySm90::kTypicalBlockBytes;
  const uint64_t per_chunk = (max_chunk_bytes + typical - 1) / typical;
  const uint64_t round_chunks = per_chunk == 0 ? 0 : round_blocks / per_chunk;
  const uint64_t fewest = (num_chunks + room - 1) / room;
  if (round_chunks != 0 && room >= round_chunks) {
    const uint64_t whole = room / round_chunks * round_chunks;
    if ((num_chunks + whole - 1) / whole == fewest) return whole;
  }
  return (num_chunks + fewest - 1) / fewest;
}

}  // namespace zarrgpu::zstd::gpu
