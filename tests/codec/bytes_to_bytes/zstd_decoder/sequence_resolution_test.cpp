// Resolution of the block-parallel decoder with more than one rank: repeat-offset
// maps against resolve_offset() run serially, and resolve_block() by a group
// of lanes in lockstep (a stand-in for a warp: same ranks, same barriers) against
// the same step by SerialGroup, on the blocks of real frames and on blocks
// whose sequences were mutated (first error in sequence order must win).
// And execution with every block on its own thread, in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "codec/bytes_to_bytes/zstd/decoder/block_execution.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/block_sections.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/group.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/repeat_offsets.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/sequence_resolution.hpp"
#include "frame_corpus.hpp"
#include "lockstep_group.hpp"

namespace zarrgpu::zstd::testing {
namespace {

// Sequence tickets from one counter shared by every rank, as the GPU's
// warps of a thread block take them (gpu/warp_group.cuh's WarpTickets).
struct SharedTickets {
  std::atomic<uint32_t>* counter;
  uint32_t operator()(bool need) const { return need ? counter->fetch_add(1) : 0u; }
};

uint32_t random_offset_value(Rng& rng) {
  switch (rng.below(4)) {
    case 0: return rng.below(4);  // 0..3, 0 included (no valid code gives it; the map must still agree)
    case 1: return 1 + rng.below(3);
    case 2: return 4 + rng.below(100);
    default: return rng.below(0xFFFFFFF0u);
  }
}

TEST(ZstdSequenceResolution, RepeatMapsComposeLikeSerialResolution) {
  Rng rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const uint32_t n = rng.below(60);
    std::vector<uint32_t> ov(n), ll(n);
    for (uint32_t i = 0; i < n; ++i) {
      ov[i] = random_offset_value(rng);
      ll[i] = rng.below(3) == 0 ? 0 : 1 + rng.below(5);
    }
    // Any entering state, including the rep[0] - 1 wrap at 0 and 1.
    uint32_t in[3] = {rng.below(3), 1 + rng.below(10), rng.below(2) ? 0xFFFFFFFFu : rng.below(50)};
    uint32_t rep[3] = {in[0], in[1], in[2]};
    std::vector<uint32_t> resolved(n);
    for (uint32_t i = 0; i < n; ++i) resolved[i] = resolve_offset(ov[i], ll[i], rep);
    // Split into runs at random cuts, compose the runs' maps, resolve each run from its prefix.
    RepeatMap prefix = repeat_identity();
    uint32_t i = 0;
    while (i < n) {
      const uint32_t end = i + 1 + rng.below(n - i);
      uint32_t state[3];
      repeat_apply(prefix, in, state);
      RepeatMap run = repeat_identity();
      for (uint32_t k = i; k < end; ++k) {
        ASSERT_EQ(resolve_offset(ov[k], ll[k], state), resolved[k]) << trial << " " << k;
        repeat_step(run, ov[k], ll[k]);
      }
      prefix = repeat_compose(prefix, run);
      i = end;
    }
    uint32_t out[3];
    repeat_apply(prefix, in, out);
    for (int s = 0; s < 3; ++s) ASSERT_EQ(out[s], rep[s]) << trial << " slot " << s;
  }
}

// The walk, entropy decoding (whose sequence decoding leaves the block summaries) and block
// placement of one chunk, serially.
struct Prepared {
  ChunkPlan plan;
  std::vector<FrameRecord> frames;
  std::vector<BlockRecord> blocks;
  std::vector<uint8_t> literals;
  std::vector<SequenceTriple> triples;
};

Prepared prepare(const Bytes& in, size_t capacity) {
  Prepared p;
  const ChunkLimits limits = chunk_limits(capacity, 0xFFFFFFFFu, 0xFFFFFFFFu);
  walk_chunk(in.data(), in.size(), limits, &p.plan, nullptr, nullptr);
  EXPECT_TRUE(p.plan.block_parallel);
  p.frames.resize(p.plan.frame_count);
  p.blocks.resize(p.plan.block_count);
  walk_chunk(in.data(), in.size(), limits, &p.plan, p.frames.data(), p.blocks.data());
  p.literals.resize(p.plan.literals_bytes);
  p.triples.resize(p.plan.triples);
  auto ws = std::make_unique<Workspace>();
  auto entropy = std::make_unique<BlockEntropy>();
  reset_workspace(*ws);
  for (BlockRecord& b : p.blocks) {
    if (b.type != BlockType::compressed) continue;
    decode_block_sections(SerialGroup{}, *ws, *entropy, in.data(), p.blocks.data(), b, p.frames[b.frame].block_size_max,
                          p.literals.data(), p.triples.data());
  }
  place_blocks(p.plan, p.frames.data(), p.blocks.data());
  return p;
}

// Block placement of the chunk, and block summary and offset resolution of every compressed block, by N ranks
// agree with one rank; block summary by N ranks from the triples also agrees with the
// summary sequence decoding left as it decoded them (prepare()), and offset resolution by N ranks from
// checkpoints (as sequence decoding leaves them where blocks are long) agrees too.
template <uint32_t N>
void expect_ranks_agree(Prepared p, size_t capacity, const std::string& what) {
  Prepared q = p;
  BasicResolutionScratch<(N > kResolutionRanks ? N : kResolutionRanks)> rs;
  for (FrameRecord& f : q.frames) f.output_start = ~uint64_t{0};
  for (BlockRecord& b : q.blocks) {
    b.output_offset = ~uint64_t{0};
    for (uint32_t& r : b.repeat_in) r = 0;
  }
  run_group<N>([&](LockstepGroup<N> g) { place_blocks(g, rs, q.plan, q.frames.data(), q.blocks.data()); });
  for (size_t f = 0; f < p.frames.size(); ++f) {
    ASSERT_EQ(q.frames[f].output_start, p.frames[f].output_start) << what << " frame " << f;
  }
  for (size_t k = 0; k < p.blocks.size(); ++k) {
    ASSERT_EQ(q.blocks[k].output_offset, p.blocks[k].output_offset) << what << " block " << k;
    for (int s = 0; s < 3; ++s) ASSERT_EQ(q.blocks[k].repeat_in[s], p.blocks[k].repeat_in[s]) << what << " block " << k;
  }
  for (size_t k = 0; k < p.blocks.size(); ++k) {
    BlockRecord& a = p.blocks[k];
    BlockRecord& b = q.blocks[k];
    if (a.type != BlockType::compressed) continue;
    BlockRecord summary = b;
    run_group<N>([&](LockstepGroup<N> g) { summarize_block(g, rs, summary, q.triples.data()); });
    EXPECT_EQ(summary.match_bytes, a.match_bytes) << what << " block " << k;
    for (int s = 0; s < 3; ++s) {
      EXPECT_EQ(summary.repeat_map.src[s], a.repeat_map.src[s]) << what << " block " << k;
      EXPECT_EQ(summary.repeat_map.value[s], a.repeat_map.value[s]) << what << " block " << k;
    }
    // Block k's triples are still unresolved in q: the checkpoints' copy.
    std::vector<SequenceTriple> tc = q.triples;
    std::vector<ResolutionCheckpoint> cps(checkpoints_per_chunk(q.plan.triples, q.plan.block_count));
    const uint32_t base = checkpoint_base(b, static_cast<uint32_t>(k));
    checkpoint_block(b, tc.data(), cps.data() + base);
    BlockRecord bc = b;
    resolve_block(SerialGroup{}, rs, p.frames[a.frame], a, p.triples.data(), capacity);
    run_group<N>([&](LockstepGroup<N> g) { resolve_block(g, rs, q.frames[b.frame], b, q.triples.data(), capacity); });
    run_group<N>([&](LockstepGroup<N> g) {
      resolve_block(g, rs, q.frames[bc.frame], bc, tc.data(), capacity, cps.data() + base);
    });
    ASSERT_EQ(b.resolve_status, a.resolve_status) << what << " block " << k;
    ASSERT_EQ(bc.resolve_status, a.resolve_status) << what << " block " << k << " from checkpoints";
    if (a.resolve_status != Status::ok) continue;
    for (uint32_t i = 0; i < a.sequence_count; ++i) {
      ASSERT_EQ(q.triples[b.triples_offset + i].offset, p.triples[a.triples_offset + i].offset)
          << what << " block " << k << " sequence " << i;
      ASSERT_EQ(tc[b.triples_offset + i].offset, p.triples[a.triples_offset + i].offset)
          << what << " block " << k << " sequence " << i << " from checkpoints";
    }
  }
}

// A frame of many blocks (flushed every flush_every bytes), so that
// repeated tables, repeat offsets and matches cross blocks.
struct ManyBlockFrame {
  Bytes data;
  Bytes frame;
  std::string what;
};
ManyBlockFrame many_block_frame(DataKind kind, int level, size_t size, size_t flush_every, uint64_t seed) {
  ManyBlockFrame m;
  m.data = make_data(kind, size, seed);
  FrameParams fp;
  fp.level = level;
  fp.flush_every = flush_every;
  m.frame = compress(m.data, fp);
  m.what = std::string(data_kind_name(kind)) + " level " + std::to_string(level);
  return m;
}

TEST(ZstdSequenceResolution, RanksAgreeWithOneRankOnRealAndMutatedBlocks) {
  Rng rng(11);
  int compared = 0;
  for (DataKind kind : {DataKind::text, DataKind::repetitive, DataKind::mixed}) {
    for (int level : {1, 3, 19}) {
      const uint32_t size = 300 * 1024 + rng.below(4096);
      const auto [data, frame, what] = many_block_frame(kind, level, size, 24 * 1024, rng.next());
      Prepared p = prepare(frame, data.size());
      expect_ranks_agree<4>(p, data.size(), what);
      expect_ranks_agree<32>(p, data.size(), what);
      // As the GPU's block summary and offset resolution on long blocks: a thread block of 128 ranks.
      if (level == 19) expect_ranks_agree<128>(p, data.size(), what + " by 128 ranks");
      // Tight capacities: the room checks fail inside blocks.
      expect_ranks_agree<4>(p, data.size() - 1 - rng.below(200 * 1024), what + " tight");
      // Mutated sequences: the first failing index must win over later ones.
      for (int m = 0; m < 8; ++m) {
        Prepared q = p;
        for (int e = 0; e < 1 + m % 3; ++e) {
          if (q.triples.empty()) break;
          SequenceTriple& t = q.triples[rng.below(static_cast<uint32_t>(q.triples.size()))];
          switch (rng.below(3)) {
            case 0: t.offset = random_offset_value(rng); break;
            case 1: t.literals_length += rng.below(2) ? 1 + rng.below(8) : rng.below(0x7FFFFFFFu); break;
            default: t.match_length += rng.below(2) ? 1 + rng.below(8) : rng.below(0x7FFFFFFFu); break;
          }
        }
        ResolutionScratch rs;
        for (BlockRecord& b : q.blocks) {
          if (b.type == BlockType::compressed) summarize_block(SerialGroup{}, rs, b, q.triples.data());
        }
        place_blocks(q.plan, q.frames.data(), q.blocks.data());
        expect_ranks_agree<5>(q, data.size(), what + " mutation " + std::to_string(m));
      }
      // A new offset at the very edge of the output so far (valid), or one
      // past it (offset_out_of_range at that sequence): the check hangs on
      // the exact output position, so a rank that starts a run with wrong
      // literal or match sums (a scan or a checkpoint) gets it wrong.
      for (int m = 0; m < 16; ++m) {
        Prepared q = p;
        const uint32_t k = rng.below(static_cast<uint32_t>(q.blocks.size()));
        const BlockRecord& b = q.blocks[k];
        if (b.type != BlockType::compressed || b.status != Status::ok || b.sequence_count < 2) continue;
        const uint32_t n = std::min(b.sequence_count, b.triples_capacity);
        const uint32_t at = n / 2 + rng.below(n - n / 2);  // past the first ranks' runs
        SequenceTriple* t = q.triples.data() + b.triples_offset;
        uint64_t op = b.output_offset;
        for (uint32_t i = 0; i < at; ++i) op += t[i].literals_length + t[i].match_length;
        op += t[at].literals_length;
        const uint64_t edge = op - q.frames[b.frame].output_start;
        if (edge == 0 || edge > q.frames[b.frame].window_size || edge + 4 > 0xFFFFFFFFu) continue;
        t[at].offset = static_cast<uint32_t>(edge + 3 + m % 2);
        ResolutionScratch rs;
        summarize_block(SerialGroup{}, rs, q.blocks[k], q.triples.data());
        place_blocks(q.plan, q.frames.data(), q.blocks.data());
        const std::string edge_what = what + " edge offset " + std::to_string(m % 2) + " block " +
                                      std::to_string(k) + " sequence " + std::to_string(at);
        expect_ranks_agree<32>(q, data.size(), edge_what);
        if (level == 19) expect_ranks_agree<128>(q, data.size(), edge_what + " by 128 ranks");
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 9);
  // Several frames in one chunk: each starts with the initial repeat
  // offsets, and the output runs on across them. Block counts below and
  // above the group's ranks.
  Bytes chunk, data;
  for (const auto& [kind, level, size] : {std::tuple{DataKind::mixed, 3, 200 * 1024}, {DataKind::text, 1, 40 * 1024},
                                          {DataKind::repetitive, 19, 900 * 1024}}) {
    const auto m = many_block_frame(kind, level, size + rng.below(4096), 8 * 1024, rng.next());
    chunk.insert(chunk.end(), m.frame.begin(), m.frame.end());
    data.insert(data.end(), m.data.begin(), m.data.end());
  }
  const Prepared p = prepare(chunk, data.size());
  ASSERT_EQ(p.plan.frame_count, 3u);
  expect_ranks_agree<4>(p, data.size(), "three frames");
  expect_ranks_agree<32>(p, data.size(), "three frames");
}

// The block summary summaries of two records agree.
bool same_summary(const BlockRecord& x, const BlockRecord& y) {
  for (int s = 0; s < 3; ++s) {
    if (x.repeat_map.src[s] != y.repeat_map.src[s] || x.repeat_map.value[s] != y.repeat_map.value[s]) return false;
  }
  return x.match_bytes == y.match_bytes;
}

// Table decoding by N ranks hands Huffman decoding and sequence decoding what one rank hands them: the same
// records, stream places and tables; and Huffman decoding and sequence decoding from either give the same
// literals and triples (sequence decoding once with length codes computed from full
// tables, twice as the GPU runs it: packed or fat tables, codes looked up,
// the bitstreams through rings). Real
// blocks (many, with repeated and treeless tables) and blocks with a
// flipped bit.
template <uint32_t N>
void expect_prepare_agrees(const Bytes& in, size_t capacity, const std::string& what) {
  ChunkPlan plan;
  const ChunkLimits limits = chunk_limits(capacity, 0xFFFFFFFFu, 0xFFFFFFFFu);
  walk_chunk(in.data(), in.size(), limits, &plan, nullptr, nullptr);
  if (!plan.block_parallel) return;
  std::vector<FrameRecord> frames(plan.frame_count);
  std::vector<BlockRecord> blocks(plan.block_count);
  walk_chunk(in.data(), in.size(), limits, &plan, frames.data(), blocks.data());
  for (size_t k = 0; k < blocks.size(); ++k) {
    if (blocks[k].type != BlockType::compressed) continue;
    const uint32_t bsm = frames[blocks[k].frame].block_size_max;
    auto one = std::make_unique<BlockEntropy>();
    auto many = std::make_unique<BlockEntropy>();
    BlockRecord a = blocks[k], b = blocks[k];
    auto ws = std::make_unique<Workspace>();
    reset_workspace(*ws);
    prepare_block_sections(SerialGroup{}, *ws, in.data(), blocks.data(), a, bsm, *one);
    auto wsg = std::make_unique<Workspace>();
    reset_workspace(*wsg);
    run_group<N>([&](LockstepGroup<N> g) { prepare_block_sections(g, *wsg, in.data(), blocks.data(), b, bsm, *many); });
    const std::string at = what + " block " + std::to_string(k);
    ASSERT_EQ(b.status, a.status) << at;
    ASSERT_EQ(b.stage, a.stage) << at;
    ASSERT_EQ(b.sequence_count, a.sequence_count) << at;
    ASSERT_EQ(b.bitstream_exact, a.bitstream_exact) << at;
    ASSERT_EQ(b.literals_size, a.literals_size) << at;
    ASSERT_EQ(many->streams.count, one->streams.count) << at;
    if (one->streams.count != 0) {
      ASSERT_EQ(many->streams_src, one->streams_src) << at;
      ASSERT_EQ(many->huffman_log, one->huffman_log) << at;
      for (uint32_t s = 0; s < one->streams.count; ++s) {
        ASSERT_EQ(many->streams.offset[s], one->streams.offset[s]) << at;
        ASSERT_EQ(many->streams.size[s], one->streams.size[s]) << at;
        ASSERT_EQ(many->streams.symbols[s], one->streams.symbols[s]) << at;
      }
      ASSERT_EQ(0, std::memcmp(many->huffman, one->huffman, (size_t{1} << one->huffman_log) * sizeof(HuffmanEntry)))
          << at;
    }
    if (a.status == Status::ok && a.sequence_count != 0) {
      ASSERT_EQ(many->sequences_src, one->sequences_src) << at;
      ASSERT_EQ(many->sequences_size, one->sequences_size) << at;
      const PackedSequenceTables& s1 = one->sequences;
      const PackedSequenceTables& sn = many->sequences;
      const PackedFseEntry* t1[3] = {s1.literals_length, s1.offset, s1.match_length};
      const PackedFseEntry* tn[3] = {sn.literals_length, sn.offset, sn.match_length};
      for (uint32_t c = 0; c < 3; ++c) {
        ASSERT_EQ(sn.fse_log[c], s1.fse_log[c]) << at;
        ASSERT_EQ(0, std::memcmp(tn[c], t1[c], (size_t{1} << s1.fse_log[c]) * sizeof(PackedFseEntry)))
            << at << " code " << c;
      }
    }
    // Huffman decoding and sequence decoding from each.
    std::vector<uint8_t> lit_a(plan.literals_bytes), lit_b(plan.literals_bytes);
    std::vector<SequenceTriple> tri_a(plan.triples), tri_b(plan.triples);
    for (uint32_t s = 0; s < 4; ++s) {
      decode_literals_stream(*one, one->huffman, in.data(), a, s, lit_a.data());
      uint64_t ring[kRingWords];
      RingBitReader reader{};
      reader.ring = ring;
      decode_literals_stream(*many, many->huffman, in.data(), b, s, lit_b.data(), reader);
    }
    decode_block_sequences(*one, one->sequences, in.data(), a, tri_a.data());
    // The GPU's sequence decoding: the packed tables copied (to shared memory there), length codes looked up.
    auto packed = std::make_unique<PackedSequenceTables>();
    if (has_sequences_to_decode(b)) copy_sequence_tables(SerialGroup{}, *packed, many->sequences);
    LengthCodeTables codes;
    fill_length_code_tables(SerialGroup{}, codes);
    uint64_t ring[kRingWords];
    LookaheadRingBitReader reader{};  // Sequence decoding's on the GPU
    reader.ring = ring;
    BlockRecord f = b;  // Sequence decoding from the fat tables below, from the same Huffman decoding
    decode_block_sequences(*many, *packed, in.data(), b, tri_b.data(), &codes, reader);
    ASSERT_EQ(b.status, a.status) << at;
    ASSERT_EQ(b.bitstream_exact, a.bitstream_exact) << at;
    // Sequence decoding's block summary, each way, is block summary's from the triples (summarize_block).
    BlockRecord summary = a;
    if (a.status == Status::ok) {
      ResolutionScratch rs;
      summarize_block(SerialGroup{}, rs, summary, tri_a.data());
      ASSERT_TRUE(same_summary(a, summary)) << at;
    }
    ASSERT_TRUE(same_summary(b, a)) << at;
    ASSERT_EQ(lit_b, lit_a) << at;
    // And as the GPU runs it where the wave's blocks are long: fat length tables.
    std::vector<SequenceTriple> tri_f(plan.triples);
    auto fat = std::make_unique<FatSequenceTables>();
    if (has_sequences_to_decode(f)) copy_sequence_tables(SerialGroup{}, *fat, many->sequences, codes);
    LookaheadRingBitReader fat_reader{};
    fat_reader.ring = ring;
    // With offset resolution's checkpoints, as the GPU leaves them there; one entry past
    // the block's is poisoned, and must stay so.
    std::vector<ResolutionCheckpoint> cps(checkpoints_per_chunk(plan.triples, plan.block_count) + 1);
    const uint32_t base = checkpoint_base(f, static_cast<uint32_t>(k));
    const uint32_t spans = (std::min(f.sequence_count, f.triples_capacity) + kCheckpointSequences - 1) /
                           kCheckpointSequences;
    std::memset(static_cast<void*>(cps.data()), 0xA5, cps.size() * sizeof(ResolutionCheckpoint));
    decode_block_sequences(*many, *fat, in.data(), f, tri_f.data(), &codes, fat_reader, cps.data() + base);
    ASSERT_EQ(f.status, a.status) << at;
    if (f.status == Status::ok && has_sequences_to_decode(f)) {
      std::vector<ResolutionCheckpoint> ref(cps.size());
      checkpoint_block(a, tri_a.data(), ref.data() + base);
      for (uint32_t j = 0; j < spans; ++j) {
        const ResolutionCheckpoint &x = cps[base + j], &y = ref[base + j];
        ASSERT_EQ(x.literals, y.literals) << at << " checkpoint " << j;
        ASSERT_EQ(x.matches, y.matches) << at << " checkpoint " << j;
        for (int s = 0; s < 3; ++s) {
          ASSERT_EQ(x.map.src[s], y.map.src[s]) << at << " checkpoint " << j;
          ASSERT_EQ(x.map.value[s], y.map.value[s]) << at << " checkpoint " << j;
        }
      }
      const uint8_t* past = reinterpret_cast<const uint8_t*>(&cps[base + spans]);
      for (size_t i = 0; i < sizeof(ResolutionCheckpoint); ++i) ASSERT_EQ(past[i], 0xA5) << at << " past the checkpoints";
    }
    ASSERT_EQ(f.bitstream_exact, a.bitstream_exact) << at;
    ASSERT_TRUE(same_summary(f, a)) << at << " (fat)";
    for (size_t i = 0; i < tri_a.size(); ++i) {
      ASSERT_EQ(tri_b[i].literals_length, tri_a[i].literals_length) << at << " sequence " << i;
      ASSERT_EQ(tri_b[i].match_length, tri_a[i].match_length) << at << " sequence " << i;
      ASSERT_EQ(tri_b[i].offset, tri_a[i].offset) << at << " sequence " << i;
      ASSERT_EQ(tri_f[i].literals_length, tri_a[i].literals_length) << at << " sequence " << i << " (fat)";
      ASSERT_EQ(tri_f[i].match_length, tri_a[i].match_length) << at << " sequence " << i << " (fat)";
      ASSERT_EQ(tri_f[i].offset, tri_a[i].offset) << at << " sequence " << i << " (fat)";
    }
  }
}

TEST(ZstdBlockSections, GroupsPrepareWhatOneThreadPrepares) {
  Rng rng(31);
  for (DataKind kind : {DataKind::text, DataKind::float_field, DataKind::mixed}) {
    for (int level : {1, 3, 19}) {
      const uint32_t size = 200 * 1024 + rng.below(4096);
      const auto [data, frame, what] = many_block_frame(kind, level, size, 20 * 1024, rng.next());
      expect_prepare_agrees<4>(frame, data.size(), what);
      expect_prepare_agrees<32>(frame, data.size(), what);
      for (int m = 0; m < 4; ++m) {
        Bytes bad = frame;
        const size_t bit = rng.below(static_cast<uint32_t>(bad.size() * 8));
        bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        expect_prepare_agrees<4>(bad, data.size(), what + " flip " + std::to_string(bit));
      }
    }
  }
}

// Execution: literal copy of every block on its own thread, then match copy of every block on
// its own thread in an arbitrary order, with groups of several ranks; and
// match copy of one block alone, the other blocks' matches never executed (their
// bytes poisoned), must still give that block's bytes: no block depends on
// another's match copy.
TEST(ZstdBlockExecution, EveryBlockDecodesItsMatchesWithoutTheOthers) {
  Rng rng(23);
  uint32_t parted = 0;  // blocks run in parts with several batches a part
  uint32_t runs_checked = 0;  // blocks whose match copy ran alone in two runs or more
  uint32_t staged_walks = 0;  // compressed blocks whose match copy ran alone in a stage past the first
  uint32_t plain_blocks = 0;  // raw and RLE blocks that literal copy in match copy by chunk's pass wrote
  for (DataKind kind : {DataKind::text, DataKind::repetitive, DataKind::mixed}) {
    for (int level : {1, 3, 19}) {
      const Bytes data = make_data(kind, 400 * 1024 + rng.below(4096), rng.next());
      FrameParams fp;
      fp.level = level;
      fp.window_log = 20;
      fp.flush_every = 12 * 1024;
      const Bytes frame = compress(data, fp);
      Prepared p = prepare(frame, data.size());
      ResolutionScratch rs;
      for (BlockRecord& b : p.blocks) {
        if (b.type == BlockType::compressed) resolve_block(SerialGroup{}, rs, p.frames[b.frame], b, p.triples.data(), data.size());
      }
      resolve_chunk(p.plan, p.frames.data(), p.blocks.data(), data.size());
      ASSERT_EQ(p.plan.resolve_status, Status::ok);
      const uint32_t n = p.plan.valid_blocks;
      ASSERT_GT(n, 20u);
      ASSERT_EQ(p.plan.decoded_size, data.size());
      const std::vector<SequenceTriple> as_decoded = p.triples;

      // Literal copy on a thread per block, later blocks first; every eighth block as a
      // group of 4 ranks (batches prepared by prefix sums, rounds carried) and
      // every eighth as a warp of 32 (its literals through windows),
      // and two more in parts, at once, as the GPU's thread blocks run
      // them: 3 parts of one rank, and 2 parts of 4 ranks.
      Bytes out(data.size(), 0xAA);
      // Firsts that literal copy does not write stay 0xDEADBEEF; the match ends' bits start clear.
      std::vector<GranuleEntry> granules(granule_entries(data.size()), GranuleEntry{0xDEADBEEFu, 0u});
      {
        std::vector<std::thread> threads;
        for (uint32_t k = n; k-- > 0;) {
          const BlockRecord& b = p.blocks[k];
          const bool in_parts = b.type == BlockType::compressed && (k % 8 == 5 || k % 8 == 6);
          parted += in_parts && b.sequence_count > 3 * kSequenceBatch;
          threads.emplace_back([&, k, in_parts] {
            if (in_parts) {
              const uint32_t parts = k % 8 == 5 ? 3 : 2, ranks = k % 8 == 5 ? 1 : 4;
              // Every rank of every part meets at the parts' barrier: each
              // part's ranks meet, its rank 0 meets the other parts' rank 0
              // (the group's lanes share one thread), and its ranks meet again.
              std::barrier<> all(parts);
              SequenceLengths sums[3] = {};
              std::vector<std::thread> part_threads;
              for (uint32_t part = 0; part < parts; ++part) {
                part_threads.emplace_back([&, part] {
                  SequenceBatch sb{};
                  auto copy_literals = [&](auto g) {
                    auto meet = [&all, g] {
                      g.sync();
                      if (g.rank() == 0) all.arrive_and_wait();
                      g.sync();
                    };
                    write_block_literals_part(g, sb, sums, part, parts, meet,
                                              frame.data(), p.blocks[k], p.literals.data(), p.triples.data(),
                                              granules.data(), out.data());
                  };
                  if (ranks == 4) run_group<4>(copy_literals);
                  else copy_literals(SerialGroup{});
                });
              }
              for (auto& t : part_threads) t.join();
              return;
            }
            SequenceBatch sb{};
            auto copy_literals = [&](auto g) {
              write_block_literals(g, sb, frame.data(), p.blocks[k], p.literals.data(), p.triples.data(),
                                   granules.data(), out.data());
            };
            if (k % 8 == 3) run_group<4>(copy_literals);
            else if (k % 8 == 7) run_group<32>(copy_literals);  // a warp's 256-byte literal windows
            else copy_literals(SerialGroup{});
          });
        }
        for (auto& t : threads) t.join();
      }
      const Bytes after_literals = out;
      const std::vector<SequenceTriple> placed = p.triples;

      // Match copy of each block alone: only that block's bytes are checked. Then
      // the same in runs of `run` sequences (the GPU's match copy on long blocks):
      // Cross-block match copy of the whole block, then in-block match copy of its runs, last run first, so
      // that no run leans on the bytes of one before it.
      for (uint32_t k = 0; k < n; ++k) {
        Bytes alone = after_literals;
        InBlockBatch ib{};
        execute_block_matches(SerialGroup{}, ib, p.blocks.data(), k, placed.data(), granules.data(), alone.data());
        const uint64_t s = p.blocks[k].output_offset;
        const uint64_t e = k + 1 < p.blocks.size() ? p.blocks[k + 1].output_offset : data.size();
        ASSERT_TRUE(std::equal(alone.begin() + s, alone.begin() + e, data.begin() + s))
            << data_kind_name(kind) << " level " << level << " block " << k << " of " << n;
        const uint32_t count = p.blocks[k].sequence_count;
        if (p.blocks[k].type != BlockType::compressed || count < 4) continue;
        const uint32_t run = 1 + rng.below(count / 2);
        Bytes in_runs = after_literals;
        copy_cross_block_bytes(SerialGroup{}, p.blocks.data(), k, placed.data(), granules.data(), in_runs.data(),
                               StridedSequences{0, 1}, run);
        // A run past the block's sequences (the GPU's ceil(count / 4)
        // runs may end past them) does nothing and reads nothing past them.
        execute_in_block_matches(SerialGroup{}, ib, p.blocks.data(), k, placed.data(), granules.data(),
                                 in_runs.data(), count + 1, count + 1 + run);
        for (uint32_t first = (count - 1) / run * run;; first -= run) {
          execute_in_block_matches(SerialGroup{}, ib, p.blocks.data(), k, placed.data(), granules.data(),
                                   in_runs.data(), first, first + run);
          if (first == 0) break;
        }
        runs_checked += count / run >= 2;
        ASSERT_TRUE(std::equal(in_runs.begin() + s, in_runs.begin() + e, data.begin() + s))
            << data_kind_name(kind) << " level " << level << " block " << k << " of " << n << " in runs of " << run;
      }

      // Match copy of each block alone in a stage (MatchStages: 2, 3 and 5 of them):
      // the bytes before its stage's floor final, as the earlier stages
      // leave them, and the index below the floor poisoned (every entry
      // sends a walk to the chunk's first sequences), so that a walk that
      // went past the floor would copy wrong sources.
      for (const uint32_t count : {2u, 3u, 5u}) {
        const MatchStages stages(count, data.size());
        constexpr uint64_t kGranuleBytes = uint64_t{1} << kGranuleShift;
        for (uint32_t k = 0; k < n; ++k) {
          const uint32_t floor = stages.floor(stages.of(p.blocks[k]));
          ASSERT_LE(floor, p.blocks[k].output_offset);
          Bytes staged = after_literals;
          std::copy(data.begin(), data.begin() + floor, staged.begin());
          std::vector<GranuleEntry> poisoned = granules;
          for (uint64_t q = 0; (q + 1) * kGranuleBytes <= floor; ++q) poisoned[q] = GranuleEntry{0u, ~0u};
          if (floor >= 10) {  // a walk from before the floor ends at once, at the floor
            EarlierBlocks earlier{p.blocks.data(), k, placed.data(), poisoned.data(), floor};
            EarlierBlocks::Walk w = earlier.start(floor - 10, 100);
            ASSERT_TRUE(earlier.step(w));
            EXPECT_EQ(w.p, floor - 10);
            EXPECT_EQ(w.len, 10u);
          }
          InBlockBatch ib{};
          copy_cross_block_bytes(SerialGroup{}, p.blocks.data(), k, placed.data(), poisoned.data(), staged.data(),
                                 StridedSequences{0, 1}, kWholeBlock, floor);
          execute_in_block_matches(SerialGroup{}, ib, p.blocks.data(), k, placed.data(), poisoned.data(),
                                   staged.data(), 0, kWholeBlock, floor);
          const uint64_t s = p.blocks[k].output_offset;
          const uint64_t e = k + 1 < p.blocks.size() ? p.blocks[k + 1].output_offset : data.size();
          ASSERT_TRUE(std::equal(staged.begin() + s, staged.begin() + e, data.begin() + s))
              << data_kind_name(kind) << " level " << level << " block " << k << " of " << n << " in stage "
              << stages.of(p.blocks[k]) << " of " << count;
          staged_walks += floor > 0 && p.blocks[k].type == BlockType::compressed;
          // And in runs (the GPU's match copy on long blocks), last run first.
          const uint32_t seqs = p.blocks[k].sequence_count;
          if (p.blocks[k].type != BlockType::compressed || seqs < 4) continue;
          const uint32_t run = 1 + rng.below(seqs / 2);
          Bytes in_runs = after_literals;
          std::copy(data.begin(), data.begin() + floor, in_runs.begin());
          copy_cross_block_bytes(SerialGroup{}, p.blocks.data(), k, placed.data(), poisoned.data(), in_runs.data(),
                                 StridedSequences{0, 1}, run, floor);
          for (uint32_t first = (seqs - 1) / run * run;; first -= run) {
            execute_in_block_matches(SerialGroup{}, ib, p.blocks.data(), k, placed.data(), poisoned.data(),
                                     in_runs.data(), first, first + run, floor);
            if (first == 0) break;
          }
          ASSERT_TRUE(std::equal(in_runs.begin() + s, in_runs.begin() + e, data.begin() + s))
              << data_kind_name(kind) << " level " << level << " block " << k << " in runs of " << run
              << ", stage " << stages.of(p.blocks[k]) << " of " << count;
        }
      }

      // Match copy of the whole chunk by one group, in order (the GPU's match copy by chunk):
      // no cross-block match copy and no granule index. Batches of 64 sequences by one rank
      // and by 4 (16 rounds), and of 32, 128 and 256 by 4 (the sizes the GPU's
      // policy is timed at); and of the chunk's first blocks only (those
      // before an error), which writes nothing past them.
      auto b32 = std::make_unique<ChunkBatch<32>>();
      auto b64 = std::make_unique<ChunkBatch<64>>();
      auto b128 = std::make_unique<ChunkBatch<128>>();
      auto b256 = std::make_unique<ChunkBatch<256>>();
      auto with_batch = [&](uint32_t batch, auto&& run) {  // run(cb) with the ChunkBatch of that size
        switch (batch) {
          case 32: run(*b32); break;
          case 128: run(*b128); break;
          case 256: run(*b256); break;
          default: run(*b64); break;
        }
      };
      for (const auto& ranks_batch : {std::pair{1u, 64u}, std::pair{4u, 64u}, std::pair{4u, 32u},
                                      std::pair{4u, 128u}, std::pair{4u, 256u}}) {
        const uint32_t ranks = ranks_batch.first, batch = ranks_batch.second;  // clang 14: no lambda captures of bindings
        for (const uint32_t valid : {n, n / 2}) {
          Bytes whole = after_literals;
          auto copy_matches = [&](auto g) {
            with_batch(batch, [&](auto& cb) {
              execute_chunk_matches(g, cb, p.blocks.data(), valid, placed.data(), whole.data());
            });
          };
          if (ranks == 1) copy_matches(SerialGroup{});
          else run_group<4>(copy_matches);
          const uint64_t e = valid < n ? p.blocks[valid].output_offset : data.size();
          ASSERT_TRUE(std::equal(whole.begin(), whole.begin() + e, data.begin()))
              << data_kind_name(kind) << " level " << level << ", match copy by chunk, " << ranks << " ranks, batches of "
              << batch << ", " << valid << " of " << n << " blocks";
          ASSERT_TRUE(std::equal(whole.begin() + e, whole.end(), after_literals.begin() + e))
              << data_kind_name(kind) << " level " << level << ", match copy by chunk wrote past block " << valid;
        }
      }

      // The same with literal copy in match copy's pass (the GPU's match copy by chunk where blocks are
      // long), from the triples as resolution left them and an output of
      // 0xAA: every literal, raw and RLE block and match by this pass, no
      // cross-block match copy and no granule index. Batches of 64 sequences by one rank, by 4
      // (16 rounds) and by 32 (two rounds a lane, the literals of short
      // runs through windows of 256 bytes); of 32 by 4 and 32; of 128 and
      // 256 by 4 (the sizes the GPU's policy is timed at); and of the
      // chunk's first blocks only (those before an error), which writes
      // nothing past them.
      for (const auto& ranks_batch : {std::pair{1u, 64u}, std::pair{4u, 64u}, std::pair{4u, 32u},
                                      std::pair{4u, 128u}, std::pair{4u, 256u}, std::pair{32u, 64u},
                                      std::pair{32u, 32u}}) {
        const uint32_t ranks = ranks_batch.first, batch = ranks_batch.second;
        for (const uint32_t valid : {n, n / 2}) {
          if (ranks == 32 && valid != n) continue;  // a group of 32 threads is slow on the host
          Bytes whole(data.size(), 0xAA);
          auto copy_matches = [&](auto g) {
            with_batch(batch, [&](auto& cb) {
              write_chunk_output(g, cb, frame.data(), p.blocks.data(), valid, p.literals.data(), as_decoded.data(),
                                 whole.data());
            });
          };
          if (ranks == 1) copy_matches(SerialGroup{});
          else if (ranks == 4) run_group<4>(copy_matches);
          else run_group<32>(copy_matches);
          for (uint32_t k = 0; k < valid; ++k) plain_blocks += p.blocks[k].type != BlockType::compressed;
          const uint64_t e = valid < n ? p.blocks[valid].output_offset : data.size();
          ASSERT_TRUE(std::equal(whole.begin(), whole.begin() + e, data.begin()))
              << data_kind_name(kind) << " level " << level << ", literal copy and match copy by chunk, " << ranks
              << " ranks, batches of " << batch << ", " << valid << " of " << n << " blocks";
          ASSERT_TRUE(std::all_of(whole.begin() + e, whole.end(), [](uint8_t x) { return x == 0xAA; }))
              << data_kind_name(kind) << " level " << level << ", literal copy and match copy by chunk wrote past block " << valid;
        }
      }

      // Match copy of every block at once, a thread each in shuffled order. The four
      // blocks with the most bytes read from earlier blocks run as groups of
      // 4 ranks (the warp's cross-rank paths: runs handed between ranks, batch
      // passes), two of them taking cross-block match copy's sequences from a shared counter as
      // the GPU does, the others as one rank (on a 2-core machine every block
      // as a group of threads, with a barrier at each turn, took minutes).
      std::vector<uint32_t> order(n);
      for (uint32_t k = 0; k < n; ++k) order[k] = k;
      std::vector<uint64_t> cross(n, 0);
      for (uint32_t k = 0; k < n; ++k) {
        const BlockRecord& b = p.blocks[k];
        if (b.type != BlockType::compressed) continue;
        for (uint32_t i = 0; i < b.sequence_count; ++i) {
          const SequenceTriple& t = placed[b.triples_offset + i];
          const uint32_t in_block = t.match_start - static_cast<uint32_t>(b.output_offset);
          if (t.offset > in_block) cross[k] += std::min(t.match_length, t.offset - in_block);
        }
      }
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return cross[a] > cross[b]; });
      ASSERT_GT(cross[order[0]], 64u) << "no block reads an earlier one: the cross-block path is not exercised";
      std::vector<int> grouped(n, 0);  // 1: strided shares, 2: tickets, 3: in runs, a thread each
      for (uint32_t x = 0; x < 6 && x < n; ++x) grouped[order[x]] = 1 + x % 3;
      for (uint32_t k = n; k > 1; --k) std::swap(order[k - 1], order[rng.below(k)]);
      {
        std::vector<std::thread> threads;
        for (uint32_t k : order) {
          threads.emplace_back([&, k] {
            InBlockBatch ib{};
            if (grouped[k] == 1) {
              run_group<4>([&](LockstepGroup<4> g) {
                execute_block_matches(g, ib, p.blocks.data(), k, placed.data(), granules.data(), out.data());
              });
            } else if (grouped[k] == 3) {
              // The GPU's runs: cross-block match copy by a group of 4 ranks, then the runs'
              // in-block match copy at once.
              const uint32_t count = p.blocks[k].sequence_count, run = part_sequences(count, 4);
              run_group<4>([&](LockstepGroup<4> g) {
                copy_cross_block_bytes(g, p.blocks.data(), k, placed.data(), granules.data(), out.data(),
                                       StridedSequences{g.rank(), 4}, run);
              });
              std::vector<std::thread> runs;
              for (uint32_t first = 0; first < count; first += run) {
                runs.emplace_back([&, first] {
                  InBlockBatch own{};
                  execute_in_block_matches(SerialGroup{}, own, p.blocks.data(), k, placed.data(), granules.data(),
                                           out.data(), first, first + run);
                });
              }
              for (auto& t : runs) t.join();
            } else if (grouped[k] == 2) {
              std::atomic<uint32_t> next{0};
              run_group<4>([&](LockstepGroup<4> g) {
                execute_block_matches(g, ib, p.blocks.data(), k, placed.data(), granules.data(), out.data(),
                                      SharedTickets{&next});
              });
            } else {
              execute_block_matches(SerialGroup{}, ib, p.blocks.data(), k, placed.data(), granules.data(), out.data());
            }
          });
        }
        for (auto& t : threads) t.join();
      }
      ASSERT_TRUE(out == data) << data_kind_name(kind) << " level " << level;

      // The walk gave every block the chunk's count of sequences before it,
      // so the triples are one list in block order. Literal copy put each match's
      // start, counted from the chunk's start, where the literals length
      // was, and indexed the chunk's granules of 2^kGranuleShift bytes: the
      // first of the chunk's sequences whose match ends after the granule's
      // first byte, and a bit at each byte where a match ends (its last).
      std::vector<uint64_t> match_end;
      for (uint32_t k = 0; k < n; ++k) {
        const BlockRecord& b = p.blocks[k];
        ASSERT_EQ(b.triples_offset, match_end.size()) << "block " << k;
        if (b.type != BlockType::compressed) continue;
        uint64_t pos = b.output_offset;
        for (uint32_t i = 0; i < b.sequence_count; ++i) {
          pos += as_decoded[b.triples_offset + i].literals_length;
          ASSERT_EQ(placed[b.triples_offset + i].match_start, pos);
          pos += as_decoded[b.triples_offset + i].match_length;
          match_end.push_back(pos);
        }
      }
      constexpr uint64_t kGranule = uint64_t{1} << kGranuleShift;
      std::vector<uint32_t> ends(granules.size(), 0);
      for (const uint64_t e : match_end) ends[(e - 1) / kGranule] |= 1u << ((e - 1) % kGranule);
      size_t first = 0;
      for (uint64_t q = 0; q < (data.size() + kGranule - 1) / kGranule; ++q) {
        while (first < match_end.size() && match_end[first] <= q * kGranule) ++first;
        ASSERT_EQ(granules[q].first, first) << "granule " << q;
        ASSERT_EQ(granules[q].ends, ends[q]) << "granule " << q;
      }
      for (uint64_t q = (data.size() + kGranule - 1) / kGranule; q < granules.size(); ++q) {
        ASSERT_EQ(granules[q].first, 0xDEADBEEFu) << "an index entry past the output";
        ASSERT_EQ(granules[q].ends, 0u) << "an index entry past the output";
      }
    }
  }
  EXPECT_GE(parted, 8u) << "blocks of several batches a part ran in parts";
  EXPECT_GE(runs_checked, 8u) << "blocks whose match copy ran in runs";
  EXPECT_GE(staged_walks, 100u) << "blocks whose match copy ran in a stage with a floor";
  EXPECT_GT(plain_blocks, 0u) << "raw or RLE blocks written by literal copy in match copy by chunk's pass";
}

}  // namespace
}  // namespace zarrgpu::zstd::testing
