// Tuning of the batched decoder (CUB's "policy"): how many warps, each
// decoding one chunk, share a thread block, and the occupancy asked of ptxas.
#pragma once

#include "codec/bytes_to_bytes/zstd/decoder/workspace.hpp"

namespace zarrgpu::zstd::gpu {

// Weight classes of a block-parallel wave (dispatch_decompress.cu): light
// chunks and heavy ones, whose phases after table decoding run side by side
// on two streams.
inline constexpr uint32_t kWeightClasses = 2;

struct DecompressPolicySm90 {
  static constexpr int kWarpsPerBlock = 4;
  static constexpr int kThreads = kWarpsPerBlock * 32;
  // Shared memory allows 5 blocks of 4 workspaces per SM (20 warps); ask
  // ptxas for the registers to match (<= 102 per thread).
  static constexpr int kMinBlocksPerSm = 5;
  static_assert(kWarpsPerBlock * sizeof(Workspace) <= 48 * 1024, "static shared memory limit");
};

// The block-parallel decoder (kernel_block_parallel.cuh): the sections and
// execution kernels reuse the warp-per-item shape above; walk and
// resolution are one thread per chunk.
struct BlockParallelPolicySm90 : DecompressPolicySm90 {
  // Measurements behind each value: bench/results/zstd_gpu_history.md,
  // "Tuned constants", under the constant's name.
  static constexpr int kWalkThreads = 128;
  // Execution kernels hold a SequenceBatch (640 bytes; in-block match
  // copy's InBlockBatch 768) per warp, not a Workspace: registers bound
  // them; ask for 8 blocks (32 warps) per SM.
  static constexpr int kCopyMinBlocksPerSm = 8;
  // Offset resolution holds 1 KiB of shared memory per warp
  // (ResolutionScratch): registers bound them too.
  static constexpr int kResolveMinBlocksPerSm = 8;
  // Huffman decoding and sequence decoding share one launch
  // (entropy_kernel), one warp per thread block in either role, over one
  // shared-memory union.
  // Huffman decoding: blocks per warp (a lane per Huffman stream, 4 per
  // block); their tables take 8 x 4 KiB of shared memory, the lanes'
  // bitstream rings 2 KiB (the union's size is sequence decoding's long
  // lanes', 37 KiB: 6 thread blocks per SM).
  static constexpr uint32_t kStreamBlocks = 8;
  // Sequence decoding: blocks (a lane each) per thread block; their packed
  // FSE tables take 13 x 2.5 KiB of shared memory, as many as fit in
  // Huffman decoding's union (dispatch_decompress.cu asserts it): each lane
  // is a serial chain, and sequence decoding is bound by the chains an SM
  // holds, 6 x 13 = 78.
  static constexpr uint32_t kSequenceBlocks = 13;
  // Sequence decoding's blocks per thread block where the wave's blocks are
  // long (kPartedSequences): the lanes of a warp each run their own chain,
  // and a warp runs every refill that any of its lanes needs, so fewer
  // lanes a warp finish the heaviest chunks sooner. Their tables are fat
  // (kernel_block_parallel.cuh): 8 x 4.5 KiB, 6 thread blocks an SM still
  // (dispatch_decompress.cu asserts it).
  static constexpr uint32_t kLongSequenceBlocks = 8;
  // Sequence decoding takes the blocks longest chain first
  // (AgentBlockParallel's order), and in-block match copy in that order
  // too, where they average this many sequences or more (level 19's long
  // blocks, not level 9's).
  static constexpr uint32_t kOrderedSequences = 6144;
  // Literal copy: a wave whose compressed blocks average this many
  // sequences or more runs each of them by the warps of a thread block, in
  // parts of kPartWarps warps.
  static constexpr uint32_t kPartedSequences = 2048;
  static constexpr uint32_t kPartWarps = 4;
  // The blocks libzstd writes, to estimate a chunk's blocks when sizing waves.
  static constexpr uint64_t kTypicalBlockBytes = 128 * 1024;
  // Match copy by block in stages (decoder/block_execution.hpp's
  // MatchStages) where the wave's blocks are long (kPartedSequences): one a
  // kMatchStageBytes of a chunk, at most kMatchStages and one per round of
  // the wave's blocks over in-block match copy's warps. Each stage's
  // in-block match copy ends with its own longest block, so more stages
  // cost it more as they shorten cross-block match copy's walks.
  // kMaxMatchStages bounds a count the benchmark fixes.
  static constexpr uint64_t kMatchStageBytes = 512 * 1024;
  static constexpr uint32_t kMatchStages = 4;
  static constexpr uint32_t kMaxMatchStages = 8;
  // Match copy by chunk (a warp per chunk, its matches in order: no walks
  // through earlier blocks, no stages) where the wave's blocks
  // average kMatchesByChunkSequences or more (0: any) and its chunk bound is
  // at most kMatchesByChunkMaxChunkBytes; larger chunks (a chain of tens of
  // thousands of batches each) run by block, in stages.
  static constexpr uint32_t kMatchesByChunkSequences = 0;
  static constexpr uint64_t kMatchesByChunkMaxChunkBytes = 1024 * 1024;
  // Sequences a batch of match copy by chunk (decoder/block_execution.hpp's
  // ChunkBatch): 64 (two a lane), or 32 where the wave's chunk bound is at
  // most kSmallChunkBatchMaxChunkBytes. A longer batch leaves more matches
  // to pass 2 (their sources in the batch), whose work a byte far exceeds a
  // short match's copy by its own rank, but a chunk is fewer batches in a
  // row.
  static constexpr uint32_t kChunkBatchSequences = 64;
  static constexpr uint32_t kSmallChunkBatchSequences = 32;
  static constexpr uint64_t kSmallChunkBatchMaxChunkBytes = 256 * 1024;
  // Literal copy in match copy by chunk's pass (decoder/block_execution.hpp's
  // write_chunk_output; kernel_block_parallel.cuh's literals_with_matches)
  // where blocks are long (kPartedSequences), in chunks up to
  // kLiteralsWithMatchesMaxChunkBytes, or larger where the literal runs
  // average kLiteralsWithMatchesRunBytes bytes or fewer: the chain copies
  // each batch's literals, which literal copy's warps copy faster where
  // they are many (level 19 has 2-4 literals a sequence, level 9 19-40).
  static constexpr uint64_t kLiteralsWithMatchesMaxChunkBytes = 256 * 1024;
  static constexpr uint32_t kLiteralsWithMatchesRunBytes = 8;
  // That chain needs 72 registers (at 64, for 8 thread blocks an SM, it
  // spilled), so 7 thread blocks (28 warps) an SM.
  static constexpr int kChunkMinBlocksPerSm = 7;
  // Cross-block match copy: warps sharing a part of one block's sequences,
  // and thread blocks (parts) per block.
  static constexpr int kCrossWarps = 8;
  static constexpr uint32_t kCrossParts = 8;
  // Records per chunk: frames, and blocks of >= 32 KiB on average (libzstd
  // writes 128 KiB blocks unless flushed; its block splitter at level 19
  // writes smaller ones); a chunk with more falls back to the one-warp
  // kernel. A slot costs scratch (a BlockRecord and a ~6.7 KB
  // BlockEntropy), not a warp: the per-block kernels run over the walk's
  // list of blocks.
  static constexpr uint32_t kMaxFrames = 8;
  static constexpr uint64_t kBytesPerBlockSlot = 32 * 1024;
  static constexpr uint32_t kExtraBlockSlots = 8;
  // Scratch of one wave of chunks (wave_layout.hpp's bytes(), 5.8-6.65x
  // the output); a larger batch runs in several waves
  // (default_wave_temp_bytes()). kLongChainWaveTempBytes for chunk bounds
  // over kLongChainMinChunkBytes: there each wave ends in long serial
  // chains a chunk, and a batch in fewer waves pays fewer of them.
  static constexpr uint64_t kWaveTempBytes = uint64_t{8} << 30;
  static constexpr uint64_t kLongChainWaveTempBytes = uint64_t{16} << 30;
  static constexpr uint64_t kLongChainMinChunkBytes = 256 * 1024;
};

}  // namespace zarrgpu::zstd::gpu
