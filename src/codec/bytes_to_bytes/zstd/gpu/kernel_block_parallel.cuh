// Kernels of the block-parallel decoder: thin shells that map threads,
// warps and shared-memory workspaces onto AgentBlockParallel's phases.
#pragma once

#include "codec/bytes_to_bytes/zstd/gpu/agent_block_parallel.cuh"

namespace zarrgpu::zstd::gpu {

// A phase run by one thread per chunk of the wave, phase(c, args...).
template <class Policy, auto Phase, class... Args>
__device__ __forceinline__ void run_per_chunk(const BlockParallelParams& bp, const Args&... args) {
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWalkThreads + threadIdx.x;
  if (c < bp.wave_chunks) (AgentBlockParallel{bp}.*Phase)(c, args...);
}

// A phase run by one warp per listed block (the walk's list: compressed
// blocks, and with kPlain also the raw and RLE ones), on chunk c's block k,
// each warp with a Scratch of shared memory. The grid covers every slot of
// the wave (the host does not know the list's length); warps past the list
// leave whole, and as the list is packed, so do whole thread blocks. (A
// warp per slot left a 256 KiB chunk's 16 slots to 14 empty warps spread
// over the thread blocks that did the work, holding their shared memory.)
// With `ordered`, the compressed blocks in sequence decoding's order (longest first).
template <class Policy, class Scratch, void (AgentBlockParallel::*Phase)(Scratch&, size_t, uint32_t),
          bool kPlain = false>
__device__ __forceinline__ void run_per_listed_block(const BlockParallelParams& bp, bool ordered = false,
                                                     bool index_granules = true) {
  __shared__ Scratch scratch[Policy::kWarpsPerBlock];
  const uint32_t warp = threadIdx.x >> 5;
  const size_t i = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + warp;
  const uint32_t count = *bp.item_count;
  uint32_t slot;
  if (i < count) slot = bp.items[ordered ? bp.order[i] : static_cast<uint32_t>(i)];
  else if (kPlain && i - count < *bp.plain_count) slot = bp.plain_item(static_cast<uint32_t>(i - count));
  else return;
  (AgentBlockParallel{bp, index_granules}.*Phase)(scratch[warp], slot / bp.max_blocks, slot % bp.max_blocks);
}

// Match copy by chunk (AgentBlockParallel::execute_chunk): a warp per chunk of the
// wave, in place of cross-block match copy and in-block match copy by block, which leave at once
// then; literal copy
// then builds no granule index (only cross-block match copy's walks read it).
template <class Policy>
__device__ __forceinline__ bool matches_by_chunk(const BlockParallelParams& bp) {
  return bp.matches_by_chunk<Policy::kMatchesByChunkSequences, Policy::kMatchesByChunkMaxChunkBytes>();
}

// Literal copy in match copy by chunk's pass (AgentBlockParallel::write_chunk), and no literal copy
// launch does anything: where match copy runs by chunk and the blocks are long (literal copy
// would run in parts), in chunks up to Policy::kLiteralsWithMatchesMaxChunkBytes, or
// larger where the literal runs are short (Policy::kLiteralsWithMatchesRunBytes) as well
// (policy.cuh says how each fared).
template <class Policy>
__device__ __forceinline__ bool literals_with_matches(const BlockParallelParams& bp) {
  return matches_by_chunk<Policy>(bp) && bp.blocks_in_parts<Policy::kPartedSequences>() &&
         (bp.max_chunk_bytes <= Policy::kLiteralsWithMatchesMaxChunkBytes || bp.short_literal_runs<Policy::kLiteralsWithMatchesRunBytes>());
}

// The thread block takes units [0, units) one at a time from `queue` (a
// counter zeroed before the launch) and runs unit(u) with all its threads,
// until none is left: the thread blocks that run at once take neighbouring
// units (list order), and none idles while another still has a long list.
template <class Counter, class Unit>
__device__ __forceinline__ void for_each_queued(Counter* queue, unsigned long long units, Unit&& unit) {
  __shared__ Counter taken;
  for (;;) {
    if (threadIdx.x == 0) taken = atomicAdd(queue, Counter{1});
    __syncthreads();
    const Counter u = taken;
    if (u >= units) return;
    unit(u);
    __syncthreads();  // every thread is done with `taken` and the unit's shared memory
  }
}

// The same by each warp on its own: units [0, units) taken one at a time
// from `queue` until none is left.
template <class Unit>
__device__ __forceinline__ void for_each_queued_by_warp(uint32_t* queue, uint32_t units, Unit&& unit) {
  for (;;) {
    uint32_t u = 0;
    if ((threadIdx.x & 31u) == 0) u = atomicAdd(queue, 1u);
    u = __shfl_sync(0xFFFFFFFFu, u, 0);
    if (u >= units) return;
    unit(u);
    __syncwarp();  // every lane is done with the unit's shared memory
  }
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) walk_kernel(BlockParallelParams bp) {
  run_per_chunk<Policy, &AgentBlockParallel::walk>(bp);
}

// After table decoding: each chunk's weight class and its blocks listed in it.
template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads)
    classify_kernel(BlockParallelParams bp, BlockParallelParams light, BlockParallelParams heavy) {
  run_per_chunk<Policy, &AgentBlockParallel::classify>(bp, light, heavy);
}

// Table decoding: a warp per listed compressed block, building tables in a shared Workspace.
template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm) tables_kernel(BlockParallelParams bp) {
  run_per_listed_block<Policy, Workspace, &AgentBlockParallel::tables>(bp);
}

// Sequence decoding's order (AgentBlockParallel::count_order, place_order): a thread per
// slot of the wave, those past the list leave.
template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) count_order_kernel(BlockParallelParams bp) {
  if (!bp.blocks_in_parts<Policy::kOrderedSequences>()) return;
  const size_t i = static_cast<size_t>(blockIdx.x) * Policy::kWalkThreads + threadIdx.x;
  if (i < *bp.item_count) AgentBlockParallel{bp}.count_order(static_cast<uint32_t>(i));
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) place_order_kernel(BlockParallelParams bp) {
  static_assert(kOrderBuckets == 32, "a lane per bucket");
  if (!bp.blocks_in_parts<Policy::kOrderedSequences>()) return;
  __shared__ uint32_t starts[kOrderBuckets];
  if (threadIdx.x < 32) {  // where each bucket starts: the blocks of the buckets before it
    const uint32_t n = bp.order_counts[threadIdx.x];
    uint32_t sum = n;
    for (uint32_t d = 1; d < 32; d <<= 1) {
      const uint32_t v = __shfl_up_sync(~0u, sum, d);
      if (threadIdx.x >= d) sum += v;
    }
    starts[threadIdx.x] = sum - n;
  }
  __syncthreads();
  const size_t i = static_cast<size_t>(blockIdx.x) * Policy::kWalkThreads + threadIdx.x;
  if (i < *bp.item_count) AgentBlockParallel{bp}.place_order(static_cast<uint32_t>(i), starts);
}

// Huffman decoding and sequence decoding in one launch (entropy_kernel below): each thread block
// of 32 threads takes one role over the list of blocks table decoding left.
//
// Huffman decoding: kStreamBlocks listed blocks, a lane per Huffman stream (4 per
// block). The blocks' tables are copied to shared memory first: each lane
// then looks up its own table at shared-memory latency.
template <class Policy>
struct StreamsShared {
  __align__(16) HuffmanEntry table[Policy::kStreamBlocks][1u << kHuffmanLogMax];
  uint64_t ring[32][kRingWords];  // each lane's stream words ahead (RingBitReader)
};

template <class Policy>
__device__ __forceinline__ void literals_streams_role(const BlockParallelParams& bp, uint32_t role_block,
                                                      StreamsShared<Policy>& sh) {
  constexpr uint32_t kBlocks = Policy::kStreamBlocks;
  static_assert(kBlocks * 4 == 32, "a lane per stream, four streams per block");
  const uint32_t count = *bp.item_count;
  const uint32_t first = role_block * kBlocks;
  if (first >= count) return;
  const uint32_t lane = threadIdx.x;
  const uint32_t n = count - first < kBlocks ? count - first : kBlocks;
  for (uint32_t j = 0; j < n; ++j) {
    const BlockEntropy& e = bp.entropy[bp.items[first + j]];
    if (e.streams.count == 0) continue;
    // As 32-bit words (2^log >= 2 entries of 2 bytes; both tables 16-byte aligned).
    group_copy_disjoint(LaneGroup<32>{lane}, reinterpret_cast<uint32_t*>(sh.table[j]),
                        reinterpret_cast<const uint32_t*>(e.huffman), (1u << e.huffman_log) / 2);
  }
  __syncthreads();
  const uint32_t j = lane / 4;
  if (j < n) AgentBlockParallel{bp}.literals_stream(first + j, lane % 4, sh.table[j], sh.ring[lane]);
}

// Sequence decoding: a lane per listed block, kSequenceBlocks of them per thread block
// (kLongSequenceBlocks where the wave's blocks are long; the other lanes
// help copy), with their FSE tables copied to shared memory first (from
// global memory every lookup of the serial chain risked an L1 miss):
// packed to 2 bytes a state, or, where the blocks are long, with fat
// length tables (FatSequenceTables: each state's extra-bit count in its
// entry, one shared-memory load less in the chain a sequence). Fat
// against packed (ab_many.sh, two
// calls): level 19 +3.9 / +3.4 / +2.7% and +4.4 / +7.3 / +1.8% at 64 /
// 256 / 1024 KiB; levels 1 and 9 within the calls' spread (-3.4..+6.6%,
// level 9 256 KiB -3.4% in one call, +1.5% in the other). With 7 fat
// lanes in Huffman decoding's union instead of 8 in a larger one, level 19 64 KiB gained
// only -1.2..+1.1%.
template <class Tables, uint32_t kLanes>
struct SequenceLanes {
  __align__(16) Tables tables[kLanes];
  uint64_t ring[kLanes][kRingWords];  // each lane's bitstream words ahead
};

template <class Policy>
struct SequencesShared {
  union {
    SequenceLanes<PackedSequenceTables, Policy::kSequenceBlocks> packed;
    SequenceLanes<FatSequenceTables, Policy::kLongSequenceBlocks> fat;
  };
  // Not first: at shared address 0 the compiler could not rule out a null
  // pointer to it, and tested for one in every sequence of sequence decoding.
  LengthCodeTables codes;
};

// `lanes` listed blocks from `first`, lane j's tables at l.tables[j].
// With `ordered`, entries [first, first + lanes) of sequence decoding's order (longest
// chains first), else of the list.
template <bool kCheckpoints, class Tables, uint32_t kLanes, class... Codes>
__device__ __forceinline__ void sequence_lanes(const BlockParallelParams& bp, uint32_t first, uint32_t lanes,
                                               bool ordered, SequenceLanes<Tables, kLanes>& l,
                                               const LengthCodeTables& codes, const Codes&... for_copy) {
  const uint32_t lane = threadIdx.x;
  const uint32_t count = *bp.item_count;
  const uint32_t n = count - first < lanes ? count - first : lanes;
  auto item = [&](uint32_t j) { return ordered ? bp.order[first + j] : first + j; };
  for (uint32_t j = 0; j < n; ++j) {
    const uint32_t slot = bp.items[item(j)];
    if (!has_sequences_to_decode(bp.blocks[slot])) continue;  // fse_log[] unset
    copy_sequence_tables(LaneGroup<32>{lane}, l.tables[j], bp.entropy[slot].sequences, for_copy...);
  }
  __syncthreads();
  if (lane < n) AgentBlockParallel{bp}.sequences(item(lane), l.tables[lane], codes, l.ring[lane], kCheckpoints);
}

template <class Policy>
__device__ __forceinline__ void sequences_role(const BlockParallelParams& bp, uint32_t role_block, bool long_blocks,
                                               SequencesShared<Policy>& sh) {
  static_assert(Policy::kSequenceBlocks <= 32 && Policy::kLongSequenceBlocks <= Policy::kSequenceBlocks,
                "a lane per block, the tables of the most");
  const uint32_t lanes = long_blocks ? Policy::kLongSequenceBlocks : Policy::kSequenceBlocks;
  const uint32_t first = role_block * lanes;
  if (first >= *bp.item_count) return;
  fill_length_code_tables(LaneGroup<32>{threadIdx.x}, sh.codes);
  const bool ordered = bp.blocks_in_parts<Policy::kOrderedSequences>();
  if (long_blocks) {
    __syncwarp();  // the fat entries take their extra bits from the code tables
    // Long blocks: offset resolution runs in parts (resolve_parts_kernel, by the same
    // rule on the same counters), from the checkpoints sequence decoding leaves.
    sequence_lanes<true>(bp, first, lanes, ordered, sh.fat, sh.codes, sh.codes);
  } else {
    sequence_lanes<false>(bp, first, lanes, ordered, sh.packed, sh.codes);
  }
}

// Huffman decoding and sequence decoding are independent (both read table decoding's records;
// Huffman decoding writes literals,
// sequence decoding triples), a lane per stream or block, each a long serial chain whose
// lengths differ from lane to lane. As two kernels, sequence decoding started when Huffman decoding's
// slowest lane ended, and a wave smaller than a round left SMs idle twice
// (2-4 warps per SM each, ncu, 256 KiB chunks at level 9). Here the
// thread blocks of one launch take either role over one shared-memory
// union: the first thread blocks sequence decoding's on the wave's listed blocks, the next
// ones Huffman decoding's, the rest (past the list) none. Where a wave has more thread
// blocks than the device holds, Huffman decoding's last ones start as the first finish.
// Sequence decoding first against Huffman decoding first (ab_many.sh): level 19 +3..5%
// at 64 KiB-1 MiB (its chains are sequence decoding's: 7,500 sequences a 64 KiB chunk),
// level 9 +3..7%, level 1 +0..2%. Longest chains first by a rule (table decoding
// summing the wave's sequences and Huffman literals) lost level 9's gain.
template <class Policy>
union EntropyShared {
  StreamsShared<Policy> streams;
  SequencesShared<Policy> sequences;
};

template <class Policy>
__global__ void __launch_bounds__(32) entropy_kernel(BlockParallelParams bp) {
  __shared__ EntropyShared<Policy> sh;
  const uint32_t count = *bp.item_count;
  const uint32_t streams = (count + Policy::kStreamBlocks - 1) / Policy::kStreamBlocks;
  const bool long_blocks = bp.blocks_in_parts<Policy::kPartedSequences>();
  const uint32_t lanes = long_blocks ? Policy::kLongSequenceBlocks : Policy::kSequenceBlocks;
  const uint32_t sequences = (count + lanes - 1) / lanes;
  if (blockIdx.x < sequences) sequences_role<Policy>(bp, blockIdx.x, long_blocks, sh.sequences);
  else if (blockIdx.x - sequences < streams) literals_streams_role<Policy>(bp, blockIdx.x - sequences, sh.streams);
}

// Resolution has no block summary kernel: sequence decoding leaves each block's summary
// (block_sections.hpp's decode_block_sequences).
//
// Offset resolution where the wave's blocks are long (as literal copy in parts): a thread block per
// listed block, its kPartWarps x 32 threads one group, each a run of the
// sequences (a warp's 32 runs of a level-19 block were ~490 sequences
// each). The grid strides over the listed blocks: at most twice the thread
// blocks the device holds, not one per block slot (a thread block per
// slot, most leaving at once, cost level 9 at 64 KiB 1.8% for block summary and offset resolution,
// when block summary had kernels of its own).
template <class Policy>
using ThreadBlockScratch = BasicResolutionScratch<Policy::kPartWarps * 32>;

template <class Policy, void (AgentBlockParallel::*Phase)(ThreadBlockScratch<Policy>&, size_t, uint32_t)>
__device__ __forceinline__ void run_per_listed_block_by_thread_block(const BlockParallelParams& bp) {
  __shared__ ThreadBlockScratch<Policy> rs;
  if (!bp.blocks_in_parts<Policy::kPartedSequences>()) return;
  for (uint32_t item = blockIdx.x, count = *bp.item_count; item < count; item += gridDim.x) {
    const uint32_t slot = bp.items[item];
    (AgentBlockParallel{bp}.*Phase)(rs, slot / bp.max_blocks, slot % bp.max_blocks);  // ends with a barrier
  }
}

// Block placement: a warp per chunk, scanning its blocks (one thread looping over a
// 16.6 MB frame's 127 blocks took 0.2 ms a wave whatever the wave's size;
// a warp takes 15 us).
template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads) place_kernel(BlockParallelParams bp) {
  __shared__ ResolutionScratch scratch[Policy::kWarpsPerBlock];
  const uint32_t warp = threadIdx.x >> 5;
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + warp;
  if (c < bp.wave_chunks) AgentBlockParallel{bp}.place(scratch[warp], c);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kPartWarps * 32, Policy::kResolveMinBlocksPerSm * 4 / Policy::kPartWarps)
    resolve_parts_kernel(BlockParallelParams bp) {
  run_per_listed_block_by_thread_block<Policy, &AgentBlockParallel::resolve<ThreadBlockGroup<Policy::kPartWarps * 32>,
                                                                          ThreadBlockScratch<Policy>, true>>(bp);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kResolveMinBlocksPerSm) resolve_kernel(BlockParallelParams bp) {
  if (bp.blocks_in_parts<Policy::kPartedSequences>()) return;
  run_per_listed_block<Policy, ResolutionScratch, &AgentBlockParallel::resolve<WarpGroup, ResolutionScratch>>(bp);
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kWalkThreads) verdict_kernel(BlockParallelParams bp) {
  run_per_chunk<Policy, &AgentBlockParallel::verdict>(bp);
}

// Execution: each warp holds a SequenceBatch of shared memory (not a whole
// Workspace): more warps per SM than the table-building kernels.
//
// Literal copy runs as one of two kernels, both launched, the other leaving at once:
// literals_kernel, a warp per listed block; or, when the wave's compressed
// blocks average Policy::kPartedSequences sequences or more (table decoding counts
// them), literals_parts_kernel, where a thread block's warps share each
// compressed block, a part of its sequences each (a warp ran a level-19
// block's ~500 batches one after the other). Every block in parts lost
// level 1 5-9% (its blocks have a few hundred sequences); with the
// threshold, level 19 gains 6-10% at 64 KiB-1 MiB and levels 1 and 9 stay
// within 1.6% (ab_many.sh).
template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kCopyMinBlocksPerSm) literals_kernel(BlockParallelParams bp) {
  if (bp.blocks_in_parts<Policy::kPartedSequences>()) return;
  run_per_listed_block<Policy, SequenceBatch, &AgentBlockParallel::write_literals, true>(bp, false,
                                                                                     !matches_by_chunk<Policy>(bp));
}

// The thread blocks take units from a queue: a listed compressed block in
// parts, then kPartWarps listed raw or RLE blocks, a warp each.
template <class Policy>
__global__ void __launch_bounds__(Policy::kPartWarps * 32, Policy::kCopyMinBlocksPerSm * 4 / Policy::kPartWarps)
    literals_parts_kernel(BlockParallelParams bp) {
  constexpr uint32_t kWarps = Policy::kPartWarps;
  if (!bp.blocks_in_parts<Policy::kPartedSequences>() || literals_with_matches<Policy>(bp)) return;
  __shared__ SequenceBatch batch[kWarps];
  __shared__ SequenceLengths sums[kWarps];
  const uint32_t warp = threadIdx.x >> 5;
  const uint32_t count = *bp.item_count, plain = *bp.plain_count;
  AgentBlockParallel agent{bp, !matches_by_chunk<Policy>(bp)};
  for_each_queued(bp.literals_queue, count + (plain + kWarps - 1) / kWarps, [&](uint32_t u) {
    if (u < count) {
      agent.write_literals_part(batch[warp], sums, u, warp, kWarps);
    } else {
      const uint32_t j = (u - count) * kWarps + warp;
      if (j < plain) {
        const uint32_t slot = bp.plain_item(j);
        agent.write_literals(batch[warp], slot / bp.max_blocks, slot % bp.max_blocks);
      }
    }
  });
}

// Cross-block match copy: kCrossParts thread blocks of kCrossWarps warps per listed
// compressed block, each on a share of its sequences. How many bytes a
// block reads from earlier blocks, and how far back each walk goes, varies
// a lot between blocks and between sequences; many warps per block, taking
// the sequences one at a time from a shared counter, keep the heaviest
// block or lane from setting the kernel's time. And the thread blocks that
// run at once cover few chunks: they take the parts in list order (a
// chunk's listed blocks are together) from a queue, so that the walks' triples, index and
// output stay in L2 (on the read path's 16.6 MB frames, one thread block
// per block: 29.7 ms per 86-frame wave; 8 per block from the queue: 14.8,
// 16 per block lost up to 11% on the Zstd bench). A grid
// striding over the parts instead was as slow as one per block: the thread
// blocks drift apart, over many chunks.
template <class Policy>
__global__ void __launch_bounds__(Policy::kCrossWarps * 32) cross_kernel(BlockParallelParams bp) {
  __shared__ uint32_t next_sequence;
  constexpr uint32_t kParts = Policy::kCrossParts;
  const MatchStages stages = bp.match_stages<Policy::kPartedSequences>();
  if (bp.match_stage >= stages.count || matches_by_chunk<Policy>(bp)) return;
  for_each_queued(bp.cross_queue, static_cast<unsigned long long>(*bp.item_count) * kParts,
                  [&](unsigned long long w) {
                    AgentBlockParallel{bp}.copy_cross(static_cast<uint32_t>(w / kParts),
                                                      static_cast<uint32_t>(w % kParts), kParts, &next_sequence, stages);
                  });
}

// In-block match copy, as literal copy (literals_kernel): a warp per listed compressed block
// (where sequence decoding takes them longest first, in that order: each stage's in-block match copy
// waits for its longest block, level 19 +5.8 / +5.7 / +0.7% at 256 KiB /
// 1 MiB / 4 MiB; literal copy's parts in that order too moved nothing beyond it,
// +0.7 / -0.6 / -1.0%: ab_many.sh, 1 GiB rows).
template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kCopyMinBlocksPerSm) execute_kernel(BlockParallelParams bp) {
  if (bp.match_stage >= bp.match_stages<Policy::kPartedSequences>().count || matches_by_chunk<Policy>(bp)) return;
  run_per_listed_block<Policy, InBlockBatch, &AgentBlockParallel::execute<Policy>>(
      bp, bp.blocks_in_parts<Policy::kOrderedSequences>());
}

// Match copy by chunk, with batches of N sequences (Policy::kChunkBatchSequences,
// or kSmallChunkBatchSequences for chunk bounds up to
// kSmallChunkBatchMaxChunkBytes): after literal copy (execute_chunks_kernel), or
// with literal copy in its pass (write_chunks_kernel, where literals_with_matches()); the host
// launches both for its N, and the one whose wave it is not leaves at once.
// A kernel for each N, so that batches of one sequence a lane take no
// registers for two.
// With the small batches (chunks of up to kSmallChunkBatchMaxChunkBytes),
// each warp takes the wave's chunks from a queue (chunks_queued()): with a
// warp per chunk by index, a class's launch left the other class's warps
// idle in thread blocks their siblings held (14 of 28 warps an SM active at
// level 19, 64 KiB: bench/results/zstd_gpu_history.md, v26); level 19 +7.0 / +3.5% at 64 / 256 KiB. The large
// batches' kernel spilled 52 bytes with the queue's loop and lost 3% at 1
// MiB: a warp per chunk there (ab_many.sh).
template <class Policy, uint32_t N>
constexpr bool chunks_queued() {
  return N == Policy::kSmallChunkBatchSequences;
}
// run(agent, warp's batch, chunk) for the chunks this warp takes.
template <class Policy, uint32_t N, class Run>
__device__ __forceinline__ void for_each_chunk(const BlockParallelParams& bp, ChunkBatch<N>* batch, Run&& run) {
  const uint32_t warp = threadIdx.x >> 5;
  AgentBlockParallel agent{bp};
  if constexpr (chunks_queued<Policy, N>()) {
    for_each_queued_by_warp(bp.chunk_queue, static_cast<uint32_t>(bp.wave_chunks),
                            [&](uint32_t c) { run(agent, batch[warp], c); });
  } else {
    const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + warp;
    if (c < bp.wave_chunks) run(agent, batch[warp], c);
  }
}

template <class Policy, uint32_t N>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kCopyMinBlocksPerSm) execute_chunks_kernel(BlockParallelParams bp) {
  if (!matches_by_chunk<Policy>(bp) || literals_with_matches<Policy>(bp)) return;
  __shared__ ChunkBatch<N> batch[Policy::kWarpsPerBlock];
  for_each_chunk<Policy, N>(bp, batch, [](AgentBlockParallel& a, ChunkBatch<N>& b, size_t c) { a.execute_chunk(b, c); });
}

template <class Policy, uint32_t N>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kChunkMinBlocksPerSm) write_chunks_kernel(BlockParallelParams bp) {
  if (!literals_with_matches<Policy>(bp)) return;
  __shared__ ChunkBatch<N> batch[Policy::kWarpsPerBlock];
  for_each_chunk<Policy, N>(bp, batch, [](AgentBlockParallel& a, ChunkBatch<N>& b, size_t c) { a.write_chunk(b, c); });
}

template <class Policy>
__global__ void __launch_bounds__(Policy::kThreads) finish_kernel(BlockParallelParams bp) {
  const size_t c = static_cast<size_t>(blockIdx.x) * Policy::kWarpsPerBlock + (threadIdx.x >> 5);
  if (c < bp.wave_chunks) AgentBlockParallel{bp}.finish(c);
}

}  // namespace zarrgpu::zstd::gpu
