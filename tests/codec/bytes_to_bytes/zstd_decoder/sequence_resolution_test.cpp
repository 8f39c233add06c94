// Phase C of the block-parallel decoder with more than one rank: repeat-offset
// maps against resolve_offset() run serially, and resolve_block() by a group
// of host threads (a stand-in for a warp: same ranks, same barriers) against
// the same step by SerialGroup, on the blocks of real frames and on blocks
// whose sequences were mutated (first error in sequence order must win).
// And phase D with every block on its own thread, each batch waiting only
// for the bytes execute_block() says it reads (the GPU's pipeline).
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "codec/bytes_to_bytes/zstd/decoder/block_execution.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/block_sections.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/group.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/repeat_offsets.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/sequence_resolution.hpp"
#include "frame_corpus.hpp"

namespace zarrgpu::zstd::testing {
namespace {

// kSize host threads that meet at every sync(), sharing one Workspace.
template <uint32_t N>
struct ThreadGroup {
  static constexpr uint32_t kSize = N;
  uint32_t r;
  std::barrier<>* bar;
  uint32_t rank() const { return r; }
  void sync() const { bar->arrive_and_wait(); }
};

template <uint32_t N, class F>
void run_group(F f) {
  std::barrier<> bar(N);
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < N; ++r) threads.emplace_back([&, r] { f(ThreadGroup<N>{r, &bar}); });
  for (auto& t : threads) t.join();
}

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

// Phases A, B, C1 and C2 of one chunk, serially.
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
  reset_workspace(*ws);
  for (BlockRecord& b : p.blocks) {
    if (b.type != BlockType::compressed) continue;
    decode_block_sections(SerialGroup{}, *ws, in.data(), p.blocks.data(), b, p.frames[b.frame].block_size_max,
                          p.literals.data(), p.triples.data());
    summarize_block(SerialGroup{}, *ws, b, p.triples.data());
  }
  place_blocks(p.plan, p.frames.data(), p.blocks.data());
  return p;
}

// C1 and C3 of every compressed block by N ranks agree with one rank.
template <uint32_t N>
void expect_ranks_agree(Prepared p, size_t capacity, const std::string& what) {
  Prepared q = p;
  auto ws = std::make_unique<Workspace>();
  for (size_t k = 0; k < p.blocks.size(); ++k) {
    BlockRecord& a = p.blocks[k];
    BlockRecord& b = q.blocks[k];
    if (a.type != BlockType::compressed) continue;
    BlockRecord c1 = b;
    run_group<N>([&](ThreadGroup<N> g) { summarize_block(g, *ws, c1, q.triples.data()); });
    EXPECT_EQ(c1.match_bytes, a.match_bytes) << what << " block " << k;
    for (int s = 0; s < 3; ++s) {
      EXPECT_EQ(c1.repeat_map.src[s], a.repeat_map.src[s]) << what << " block " << k;
      EXPECT_EQ(c1.repeat_map.value[s], a.repeat_map.value[s]) << what << " block " << k;
    }
    resolve_block(SerialGroup{}, *ws, p.frames[a.frame], a, p.triples.data(), capacity);
    run_group<N>([&](ThreadGroup<N> g) { resolve_block(g, *ws, q.frames[b.frame], b, q.triples.data(), capacity); });
    ASSERT_EQ(b.resolve_status, a.resolve_status) << what << " block " << k;
    if (a.resolve_status != Status::ok) continue;
    EXPECT_EQ(b.reach, a.reach) << what << " block " << k;
    for (uint32_t i = 0; i < a.sequence_count; ++i) {
      ASSERT_EQ(q.triples[b.triples_offset + i].offset, p.triples[a.triples_offset + i].offset)
          << what << " block " << k << " sequence " << i;
    }
  }
}

TEST(ZstdSequenceResolution, RanksAgreeWithOneRankOnRealAndMutatedBlocks) {
  Rng rng(11);
  int compared = 0;
  for (DataKind kind : {DataKind::text, DataKind::repetitive, DataKind::mixed}) {
    for (int level : {1, 3, 19}) {
      const Bytes data = make_data(kind, 300 * 1024 + rng.below(4096), rng.next());
      FrameParams fp;
      fp.level = level;
      fp.flush_every = 24 * 1024;  // many blocks: repeat offsets and matches cross them
      const Bytes frame = compress(data, fp);
      const std::string what = std::string(data_kind_name(kind)) + " level " + std::to_string(level);
      Prepared p = prepare(frame, data.size());
      expect_ranks_agree<4>(p, data.size(), what);
      expect_ranks_agree<32>(p, data.size(), what);
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
        for (BlockRecord& b : q.blocks) {
          if (b.type == BlockType::compressed) summarize_block(SerialGroup{}, *std::make_unique<Workspace>(), b, q.triples.data());
        }
        place_blocks(q.plan, q.frames.data(), q.blocks.data());
        expect_ranks_agree<5>(q, data.size(), what + " mutation " + std::to_string(m));
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 9);
}

// execute_block()'s Deps with host threads: per block a counter of final
// bytes; earlier blocks are slowed down at every publish so that later ones
// run ahead and would read unwritten bytes if a wait range were too short.
struct ThreadedProgress {
  const BlockRecord* blocks;
  std::atomic<uint32_t>* done;
  uint32_t k;
  uint32_t delay_us;
  void wait(uint64_t lowest, uint64_t end) {
    for (uint32_t j = k; j > 0 && blocks[j].output_offset > lowest; --j) {
      const uint64_t s = blocks[j - 1].output_offset, e = blocks[j].output_offset;
      if (end <= s) continue;
      const uint32_t need = static_cast<uint32_t>((end < e ? end : e) - s);
      while (done[j - 1].load(std::memory_order_acquire) < need) std::this_thread::yield();
    }
  }
  void publish(uint64_t bytes) {
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    done[k].store(static_cast<uint32_t>(bytes), std::memory_order_release);
  }
};

TEST(ZstdBlockExecution, BlocksOnTheirOwnThreadsWaitOnlyForTheBytesTheyRead) {
  Rng rng(23);
  for (DataKind kind : {DataKind::text, DataKind::repetitive, DataKind::mixed}) {
    for (int level : {1, 3, 19}) {
      const Bytes data = make_data(kind, 400 * 1024 + rng.below(4096), rng.next());
      FrameParams fp;
      fp.level = level;
      fp.window_log = 20;
      fp.flush_every = 12 * 1024;
      const Bytes frame = compress(data, fp);
      Prepared p = prepare(frame, data.size());
      auto ws = std::make_unique<Workspace>();
      for (BlockRecord& b : p.blocks) {
        if (b.type == BlockType::compressed) resolve_block(SerialGroup{}, *ws, p.frames[b.frame], b, p.triples.data(), data.size());
      }
      resolve_chunk(p.plan, p.frames.data(), p.blocks.data(), data.size());
      ASSERT_EQ(p.plan.resolve_status, Status::ok);
      ASSERT_GT(p.plan.valid_blocks, 20u);
      Bytes out(data.size(), 0xAA);
      std::vector<std::atomic<uint32_t>> done(p.plan.valid_blocks);
      for (auto& d : done) d.store(0);
      std::vector<std::thread> threads;
      // Later blocks start first; earlier ones publish slowly.
      for (uint32_t k = p.plan.valid_blocks; k-- > 0;) {
        const uint32_t delay = k < p.plan.valid_blocks / 2 ? 20 + rng.below(100) : 0;
        threads.emplace_back([&, k, delay] {
          auto own = std::make_unique<Workspace>();
          ThreadedProgress progress{p.blocks.data(), done.data(), k, delay};
          execute_block(SerialGroup{}, *own, frame.data(), p.blocks[k], p.literals.data(), p.triples.data(), out.data(),
                        progress);
        });
      }
      for (auto& t : threads) t.join();
      ASSERT_EQ(p.plan.decoded_size, data.size());
      ASSERT_TRUE(out == data) << data_kind_name(kind) << " level " << level;
    }
  }
}

}  // namespace
}  // namespace zarrgpu::zstd::testing
