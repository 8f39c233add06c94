// Host entry point of the block-parallel decoder: the walk to execution of
// frame_walk.hpp, block_sections.hpp, sequence_resolution.hpp and
// block_execution.hpp run in order on one thread, with the very code the
// GPU kernels run. Same results as decode_frames(): bytes, decoded size and
// status, on valid and corrupt input alike.
#pragma once

#include <memory>
#include <vector>

#include "block_execution.hpp"
#include "block_sections.hpp"
#include "decode_frames.hpp"
#include "frame_walk.hpp"
#include "sequence_resolution.hpp"

namespace zarrgpu::zstd {

// What the block-parallel decoder did with a chunk (for tests and tools).
struct BlockParallelStats {
  bool fell_back = false;  // the walk ran out of scratch: decode_chunk() decoded the chunk
  uint32_t frames = 0;
  uint32_t blocks = 0;
};

inline Status decode_frames_block_parallel(const void* src, size_t src_size, void* dst, size_t capacity,
                                           size_t* decoded_size, const DecodeOptions& options = {},
                                           BlockParallelStats* stats = nullptr) {
  size_t ignored = 0;
  if (decoded_size == nullptr) decoded_size = &ignored;
  *decoded_size = 0;
  BlockParallelStats local;
  if (stats == nullptr) stats = &local;
  *stats = BlockParallelStats{};
  if ((src == nullptr && src_size != 0) || (dst == nullptr && capacity != 0)) return Status::invalid_argument;
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);

  // A: count, size the records, walk again to fill them.
  const ChunkLimits limits = chunk_limits(capacity, 0xFFFFFFFFu, 0xFFFFFFFFu);
  ChunkPlan plan;
  walk_chunk(in, src_size, limits, &plan, nullptr, nullptr);
  if (!plan.block_parallel) {
    stats->fell_back = true;
    return decode_frames(src, src_size, dst, capacity, decoded_size, options);
  }
  std::vector<FrameRecord> frames(plan.frame_count);
  std::vector<BlockRecord> blocks(plan.block_count);
  walk_chunk(in, src_size, limits, &plan, frames.data(), blocks.data());
  stats->frames = plan.frame_count;
  stats->blocks = plan.block_count;
  std::vector<uint8_t> literals(plan.literals_bytes);
  std::vector<SequenceTriple> triples(plan.triples);

  // Table decoding, Huffman decoding and sequence decoding (which leaves the block summary), each
  // over every compressed
  // block (on the GPU: all at once), so that every host test checks that table decoding
  // hands Huffman decoding and sequence decoding all they read.
  auto ws = std::make_unique<Workspace>();
  reset_workspace(*ws);
  std::vector<BlockEntropy> entropy(plan.block_count);
  for (BlockRecord& b : blocks) {
    if (b.type != BlockType::compressed) continue;
    prepare_block_sections(SerialGroup{}, *ws, in, blocks.data(), b, frames[b.frame].block_size_max,
                           entropy[&b - blocks.data()]);
  }
  for (uint32_t s = 0; s < 4; ++s) {
    for (BlockRecord& b : blocks) {
      if (b.type != BlockType::compressed) continue;
      const BlockEntropy& e = entropy[&b - blocks.data()];
      decode_literals_stream(e, e.huffman, in, b, s, literals.data());
    }
  }
  // Sequence decoding from the packed tables table decoding left, or, every other block, from their
  // fat copy (the GPU's where a wave's blocks are long): every host test
  // checks both forms.
  // The fat form leaves offset resolution's checkpoints too, as on the GPU, and offset resolution below
  // starts from them.
  LengthCodeTables codes;
  fill_length_code_tables(SerialGroup{}, codes);
  auto fat = std::make_unique<FatSequenceTables>();
  std::vector<ResolutionCheckpoint> checkpoints(checkpoints_per_chunk(plan.triples, plan.block_count));
  std::vector<bool> checkpointed(blocks.size());
  for (BlockRecord& b : blocks) {
    if (b.type != BlockType::compressed) continue;
    const uint32_t k = static_cast<uint32_t>(&b - blocks.data());
    const BlockEntropy& e = entropy[k];
    if (k % 2 == 0 || !has_sequences_to_decode(b)) {  // fse_log[] unset without sequences
      decode_block_sequences(e, e.sequences, in, b, triples.data());
    } else {
      checkpointed[k] = true;
      copy_sequence_tables(SerialGroup{}, *fat, e.sequences, codes);
      decode_block_sequences(e, *fat, in, b, triples.data(), &codes, WindowBitReader{},
                             checkpoints.data() + checkpoint_base(b, k));
    }
  }
  // Block placement (scan over the chunk's blocks), offset resolution (every compressed block on its
  // own), chunk verdict (the verdict), then literal copy, cross-block match copy and in-block
  // match copy over the blocks chunk verdict
  // validated (on the GPU, each step all at once), then the checksums. Match copy
  // runs a stage's blocks last to first here: any order gives the same
  // bytes, and this one makes every host test check that no block needs an
  // earlier one's matches of its stage done.
  place_blocks(plan, frames.data(), blocks.data());
  for (BlockRecord& b : blocks) {
    if (b.type != BlockType::compressed) continue;
    const uint32_t k = static_cast<uint32_t>(&b - blocks.data());
    resolve_block(SerialGroup{}, ws->scratch.resolution, frames[b.frame], b, triples.data(), capacity,
                  checkpointed[k] ? checkpoints.data() + checkpoint_base(b, k) : nullptr);
  }
  resolve_chunk(plan, frames.data(), blocks.data(), capacity);
  // Literal copy and match copy as the GPU runs them, each way, so that the host tests check
  // every one: where the chunk has an odd number of blocks, by chunk, with
  // literal copy in match copy's pass (write_chunk_output, the GPU's way where blocks are
  // long) for one block or 5, 9, ..., else literal copy then execute_chunk_matches;
  // where it has an even number, literal copy then match copy by block in two stages
  // (block_execution.hpp's MatchStages), which checks walks that stop at a
  // stage's floor as well as walks through earlier blocks of the same stage.
  // The GPU's batches (gpu/policy.cuh): 32 sequences in chunks of up to
  // 256 KiB, else 64.
  auto by_chunk = [&](auto&& copy_matches) {
    if (capacity <= 256 * 1024) copy_matches(*std::make_unique<ChunkBatch<32>>());
    else copy_matches(*std::make_unique<ChunkBatch<64>>());
  };
  if (plan.block_count % 4 == 1) {
    by_chunk([&](auto& batch) {
      write_chunk_output(SerialGroup{}, batch, in, blocks.data(), plan.valid_blocks, literals.data(), triples.data(),
                         out);
    });
  } else {
    // The granule index covers the blocks chunk verdict validated, up to where the last of them ends.
    uint64_t valid_end = 0;
    if (plan.valid_blocks > 0) {
      const BlockRecord& last = blocks[plan.valid_blocks - 1];
      valid_end = last.output_offset +
                  (last.type == BlockType::compressed ? uint64_t{last.literals_size} + last.match_bytes : last.size);
    }
    std::vector<GranuleEntry> granules(granule_entries(valid_end));  // zeroed, as literal copy needs
    for (uint32_t i = 0; i < plan.valid_blocks; ++i) {
      write_block_literals(SerialGroup{}, ws->batch, in, blocks[i], literals.data(), triples.data(), granules.data(),
                           out);
    }
    if (plan.block_count % 2 == 1) {
      by_chunk([&](auto& batch) {
        execute_chunk_matches(SerialGroup{}, batch, blocks.data(), plan.valid_blocks, triples.data(), out);
      });
    } else {
      const MatchStages stages(2, valid_end);
      auto in_block = std::make_unique<InBlockBatch>();
      for (uint32_t stage = 0; stage < stages.count; ++stage) {
        for (uint32_t i = plan.valid_blocks; i-- > 0;) {
          if (stages.of(blocks[i]) != stage) continue;
          copy_cross_block_bytes(SerialGroup{}, blocks.data(), i, triples.data(), granules.data(), out,
                                 StridedSequences{0, 1}, kWholeBlock, stages.floor(stage));
        }
        for (uint32_t i = plan.valid_blocks; i-- > 0;) {
          if (stages.of(blocks[i]) != stage) continue;
          execute_in_block_matches(SerialGroup{}, *in_block, blocks.data(), i, triples.data(), granules.data(), out,
                                   0, kWholeBlock, stages.floor(stage));
        }
      }
    }
  }
  const Status st = finish_chunk(SerialGroup{}, plan, frames.data(), in, out, options.verify_checksum);
  if (st == Status::ok) *decoded_size = plan.decoded_size;
  return st;
}

}  // namespace zarrgpu::zstd
