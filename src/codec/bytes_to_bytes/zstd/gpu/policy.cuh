// Tuning of the batched decoder (CUB's "policy"): how many warps, each
// decoding one chunk, share a thread block, and the occupancy asked of ptxas.
#pragma once

#include "codec/bytes_to_bytes/zstd/decoder/workspace.hpp"

namespace zarrgpu::zstd::gpu {

// Weight classes of a block-parallel wave (dispatch_decompress.cu): light
// chunks and heavy ones, whose phases after table decoding run side by side on two
// streams.
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
  static constexpr int kWalkThreads = 128;
  // Execution kernels hold a SequenceBatch (640 bytes; in-block match copy's InBlockBatch 768) per
  // warp, not a
  // Workspace: registers bound them; ask for 8 blocks (32 warps) per SM.
  static constexpr int kCopyMinBlocksPerSm = 8;
  // Offset resolution holds 1 KiB of shared memory per warp (ResolutionScratch):
  // registers bound them too.
  static constexpr int kResolveMinBlocksPerSm = 8;
  // Huffman decoding and sequence decoding share one launch (entropy_kernel), one warp per thread block
  // in either role, over one shared-memory union.
  // Huffman decoding: blocks per warp (a lane per Huffman stream, 4 per block); their
  // tables take 8 x 4 KiB of shared memory, the lanes' bitstream rings 2 KiB
  // (the union's size is sequence decoding's long lanes', 37 KiB: 6 thread blocks per SM).
  static constexpr uint32_t kStreamBlocks = 8;
  // Sequence decoding: blocks (a lane each) per thread block; their packed FSE tables take
  // 13 x 2.5 KiB of shared memory, as many as fit in Huffman decoding's union
  // (dispatch_decompress.cu asserts it): each lane is a serial chain, and
  // Sequence decoding is bound by the chains an SM holds, 6 x 13 = 78 (with 7 lanes, 42:
  // 256 KiB and 1 MiB at levels 9 and 19 were 2.5-3% slower, H200).
  static constexpr uint32_t kSequenceBlocks = 13;
  // Sequence decoding's blocks per thread block where the wave's blocks are long (as literal copy in
  // parts below): the lanes of a warp each run their own chain, and a warp
  // runs every refill that any of its lanes needs. Level 19 64 KiB: the
  // heaviest chunk alone decodes its sequences in 2.5 ms, amid the wave's
  // 4,096 in 4.0 ms (ncu, H200); 8 lanes a warp instead of 13 gained 5.1%
  // there, 6 lanes no more, and level 9 64 KiB (short blocks, more of them
  // than a round of 8) lost 3% (ab_many.sh, 2026-11-22 20:57 UTC). Their
  // tables are fat (kernel_block_parallel.cuh): 8 x 4.5 KiB, 3 KiB more
  // than Huffman decoding's union, 6 thread blocks an SM still (dispatch_decompress.cu
  // asserts it).
  static constexpr uint32_t kLongSequenceBlocks = 8;
  // Sequence decoding takes the blocks longest chain first (AgentBlockParallel's sequence decoding
  // order), and in-block match copy in that order too (kernel_block_parallel.cuh), where
  // they average this many sequences or more: level 19 +8.0 /
  // +6.4 / +6.1% at 256 KiB / 1 MiB / 4 MiB, 64 KiB +0.3%; level 9 (~2,000-
  // 4,000 a block) lost 2.8% at 256 KiB and 1 MiB to it, level 1 0; the
  // same order for Huffman decoding's streams lost level 1 10-14% (ab_many.sh, 1 GiB
  // rows, H200, 2026-11-23 09:27 UTC).
  static constexpr uint32_t kOrderedSequences = 6144;
  // Literal copy: a wave whose compressed blocks average this many sequences or more
  // runs each of them by the warps of a thread block, in parts.
  static constexpr uint32_t kPartedSequences = 2048;
  // Literal copy cuts such blocks into parts, match copy (cross-block match copy, in-block match
  // copy) into runs, of a warp
  // each, kPartWarps of them in a thread block; match copy only in chunks of at
  // most kRunsMaxChunkBytes whose blocks are longer still: one-block
  // chunks. At 256 KiB (two blocks) the runs gained 5% on 4,096 chunks, but
  // on 1 GiB of them runs cost level 19 11.7% (27.00 GB/s without them,
  // 23.84 with; 64 KiB unchanged, ab_many.sh, H200, 2026-11-23 06:09 UTC):
  // the second block's walks reach back through the first, and the thread
  // blocks at work cover more chunks than L2 holds.
  static constexpr uint32_t kPartWarps = 4;
  static constexpr uint64_t kRunsMaxChunkBytes = 128 * 1024;
  // Match copy in runs only where the blocks average kRunsSequences or more: level 9
  // at 256 KiB (~4,000 a block) lost 8% to the runs' cross-block match copy walks; against
  // runs from 2,048, 6,144 gained 8.9% there, level 19 64 KiB -1.1%, 256
  // KiB +1.2% (ab_many.sh, 3 rounds, H200, 2026-11-22 21:14 UTC).
  static constexpr uint32_t kRunsSequences = 6144;
  static_assert(kRunsSequences >= kPartedSequences, "match copy in runs where literal copy runs in parts");
  // The blocks libzstd writes, to estimate a chunk's blocks when sizing waves.
  static constexpr uint64_t kTypicalBlockBytes = 128 * 1024;
  // Match copy in stages (decoder/block_execution.hpp's MatchStages) where the wave's
  // blocks are long (as literal copy in parts): one a kMatchStageBytes of a chunk, at
  // most kMatchStages and one per round of the wave's blocks over in-block match copy's warps.
  // Each stage's in-block match copy ends with its own longest block, so more stages cost
  // In-block match copy more as they shorten cross-block match copy's walks. Level 19, 1 GiB rows, GB/s at
  // 256 KiB / 1 MiB / 4 MiB in 1, 2, 3, 4 and 6 stages: 29.29, 29.89,
  // 28.88, 29.41, 27.25 / 20.73, 22.48, 22.22, 22.45, 20.25 / 13.01, 15.88,
  // 17.69, 18.49, 17.42 (ab_many.sh, H200, 2026-11-23 08:56 UTC). A count
  // the caller fixes (DecompressOptions::match_stages) may go to kMaxMatchStages.
  static constexpr uint64_t kMatchStageBytes = 512 * 1024;
  static constexpr uint32_t kMatchStages = 4;
  static constexpr uint32_t kMaxMatchStages = 8;
  // Match copy by chunk (a warp per chunk, its matches in order: no cross-block match copy walks, no
  // stages, no runs) where the wave's blocks average kMatchesByChunkSequences or
  // more and its chunk bound is at most kMatchesByChunkMaxChunkBytes. First for
  // level 19 up to 512 KiB (2026-11-23: 256 KiB +16.4% on by block, H200);
  // since pass 2 searches only its listed sequences and literal copy builds no
  // granule index for such waves, it wins up to 1 MiB at every level
  // (against the same tree with level 19 only (>= 6,144 sequences a block)
  // up to 1 MiB, with batches of 32 up to 256 KiB: level 1 +5.1 / +5.1 /
  // +3.3%, level 3 +5.2 / +6.5 / +10.2%, level 9 +9.4 / +9.8 / +8.5%, level
  // 19 +4.6 / +3.5 / +1.5% at 64 KiB / 256 KiB / 1 MiB; from 1,024
  // sequences a block (levels 1 and 3 by block) 2.5-5.8% less there; ab_many.sh,
  // 1 GiB rows, 2 rounds, H100, 2026-11-25 12:29 UTC). 4 MiB (~27,000
  // batches of 32 a chunk at level 19, 12:13 on 2026-11-23: -42%) stays by
  // block, in stages.
  static constexpr uint32_t kMatchesByChunkSequences = 0;
  static constexpr uint64_t kMatchesByChunkMaxChunkBytes = 1024 * 1024;
  // So under the rule every wave whose match copy would run in runs (kRuns*) runs
  // by chunk instead: in-block match copy's runs (execute_runs_kernel) and cross-block match copy's walks
  // before them are left to MatchMode::by_block, fixed by a caller or
  // ZARRGPU_ZSTD_MATCHES_BY_CHUNK=0, and to chunks over 1 MiB.
  static_assert(kMatchesByChunkSequences <= kRunsSequences && kMatchesByChunkMaxChunkBytes >= kRunsMaxChunkBytes,
                "by chunk covers the waves of match copy in runs");
  // Sequences a batch of match copy by chunk (decoder/block_execution.hpp's
  // ChunkBatch): 64 (two a lane), or 32 where the wave's chunk bound is at
  // most kSmallChunkBatchMaxChunkBytes. A longer batch leaves more matches
  // to pass 2 (their sources in the batch), whose work a byte far exceeds a
  // short match's copy by its own rank, but a chunk is fewer batches in a
  // row. Level 19 against 64 everywhere: 32 +2.2 / +1.4 / -3.4% at 64 KiB
  // / 256 KiB / 1 MiB, 128 -4.6 / -3.6% and 256 -14 / -16% at 64 / 256 KiB
  // (ab_many.sh, 1 GiB rows, H100, 2026-11-25 11:51 and 12:11 UTC).
  static constexpr uint32_t kChunkBatchSequences = 64;
  // Literal copy in match copy by chunk's pass (decoder/block_execution.hpp's
  // write_chunk_output; kernel_block_parallel.cuh's literals_with_matches) where its
  // blocks are long (literal copy in parts, kPartedSequences), in chunks up to
  // kLiteralsWithMatchesMaxChunkBytes, or larger where the literal runs average
  // kLiteralsWithMatchesRunBytes bytes or fewer: the chain copies each batch's literals,
  // which literal copy's warps copy faster where they are many. Against literal copy then match copy by
  // chunk, 2 GiB rows, 2 rounds (ab_many.sh, H100, 2026-11-25 ~23:30 and
  // ~23:45 UTC): level 19 +7.3 / +8.7 / +10.3% and +6.5 / +9.8 / +8.8% at 64
  // KiB / 256 KiB / 1 MiB; level 9 -0.5 / +13.0 / -12.4%; everywhere (no
  // rule) levels 1 and 3 at 256 KiB and 1 MiB -4.3..-7.0% (level 3 256
  // KiB +5.9%). Literals a sequence on the bench's data: level 19 2-4,
  // level 9 19-40, level 3 over 60.
  static constexpr uint64_t kLiteralsWithMatchesMaxChunkBytes = 256 * 1024;
  static constexpr uint32_t kLiteralsWithMatchesRunBytes = 8;
  // That chain needs 72 registers (64, for 8 thread blocks an SM, spilled
  // 52-108 bytes; 388 with both batch sizes in one kernel), so 7 thread
  // blocks (28 warps) an SM.
  static constexpr int kChunkMinBlocksPerSm = 7;
  static constexpr uint32_t kSmallChunkBatchSequences = 32;
  static constexpr uint64_t kSmallChunkBatchMaxChunkBytes = 256 * 1024;
  // Cross-block match copy: warps sharing a part of one block's sequences, and thread
  // blocks (parts) per block.
  static constexpr int kCrossWarps = 8;
  static constexpr uint32_t kCrossParts = 8;
  // Records per chunk: frames, and blocks of >= 32 KiB on average (libzstd
  // writes 128 KiB blocks unless flushed; its block splitter at level 19
  // writes smaller ones); a chunk with more falls back to the one-warp
  // kernel. A slot costs scratch (a BlockRecord and a ~6.7 KB BlockEntropy),
  // no longer a warp: the per-block kernels run over the walk's list of
  // blocks (when every slot was a warp of five kernels, 16 KiB slots plus 16
  // left 30 of a 256 KiB chunk's 32 warps empty).
  static constexpr uint32_t kMaxFrames = 8;
  static constexpr uint64_t kBytesPerBlockSlot = 32 * 1024;
  static constexpr uint32_t kExtraBlockSlots = 8;
  // Scratch of one wave of chunks (records, literals, triples, offset resolution's
  // checkpoints: wave_layout.hpp's bytes(), 6.65x the output of 64 KiB
  // chunks, 5.8x from 1 MiB); a larger batch runs in several waves (wave_layout.hpp's
  // default_wave_temp_bytes()). kWaveTempBytes, and kLongChainWaveTempBytes
  // for chunk bounds over kLongChainMinChunkBytes: there each wave ends in
  // long serial chains a chunk (match copy by chunk up to 1 MiB: ~3,900 batches of
  // 64 sequences in a level-19 1 MiB chunk, ~15 ms; match copy by block's stages
  // above), and a batch in fewer waves pays fewer of them; two lanes hide
  // only part of a tail that long. 2 GiB rows, one wave (16 GiB: 11.0-12.6
  // GiB asked) against 8 GiB waves (on two lanes up to 1 MiB), ab_many.sh
  // env:ZARRGPU_ZSTD_WAVE_TEMP_MIB=16384, 2 rounds, H100, 2026-11-25:
  // level 19 +1.6 / +4.5 / +24.9% and level 3 -1.9 / -3.1 / +2.8% at 64 /
  // 256 / 1024 KiB (20:58 UTC); level 19 +2.2 / +9.7% and level 3 -2.2 /
  // +2.5% at 256 / 4096 KiB (21:42 UTC, after sequence decoding's checkpoints).
  static constexpr uint64_t kWaveTempBytes = uint64_t{8} << 30;
  static constexpr uint64_t kLongChainWaveTempBytes = uint64_t{16} << 30;
  static constexpr uint64_t kLongChainMinChunkBytes = 256 * 1024;
};

}  // namespace zarrgpu::zstd::gpu
