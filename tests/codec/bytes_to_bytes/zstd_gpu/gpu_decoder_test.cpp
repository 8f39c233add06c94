// GPU tests of the batched decoder: the differential corpus decoded in one
// batch must match the original bytes and the host decoder's statuses, also
// for corrupt inputs; no write leaves a chunk's capacity; the call can be
// captured in a CUDA graph. Skips when no GPU is present.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include "experiments.hpp"  // bench/zstd_gpu/: the dispatch's experiments build
#include "codec/bytes_to_bytes/zstd/decoder/block_sections.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/decode_frames.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/frame_walk.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/policy.cuh"
#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"
#include "frame_corpus.hpp"

namespace zarrgpu::zstd::testing {
namespace {

namespace zg = zarrgpu::zstd::gpu;
namespace zx = zarrgpu::zstd::gpu::experiments;

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << cudaGetErrorString(x)

constexpr size_t kGuard = 32;
constexpr uint8_t kGuardByte = 0x5A;

struct Case {
  Bytes frame;
  Bytes expected;     // original data (valid frames)
  size_t capacity;
  std::string what;
};

struct BatchResult {
  std::vector<Bytes> outputs;  // capacity bytes each
  std::vector<size_t> sizes;
  std::vector<Status> statuses;
  bool guards_intact = true;
};

// Decodes all cases in one decompress_async call (optionally through a CUDA graph).
// block_parallel: the block-parallel path, with temp for `wave_chunks` chunks
// (0: as many as get_decompress_temp_size asks for), so that waves are tested.
// prime: decode the batch once on the stream before capturing it, so that
// the decoder has made the stream for its weight classes (it makes none
// during a capture) and the captured graph forks and joins it.
// chunk_bound: the block-parallel path's max_uncompressed_chunk_bytes (0:
// the largest capacity). match_stages, match_copy: fixed for this call in
// the dispatch's experiments build (bench/zstd_gpu/experiments.hpp; 0,
// automatic: the policy's rule). needs: DecompressOptions::chunk_needs (null: unknown).
void run_batch(const std::vector<Case>& cases, BatchResult* r, bool use_graph = false, bool block_parallel = false,
               size_t wave_chunks = 0, bool prime = false, size_t chunk_bound = 0, uint32_t match_stages = 0,
               zx::MatchCopy match_copy = zx::MatchCopy::automatic, const zg::ChunkNeeds* needs = nullptr) {
  zx::Settings fixed;
  fixed.match_stages = match_stages;
  fixed.match_copy = match_copy;
  zx::fixed() = fixed;
  struct Unfix {
    ~Unfix() { zx::fixed().reset(); }
  } unfix;
  const size_t n = cases.size();
  size_t in_total = 0, out_total = 0;
  std::vector<size_t> in_off(n), out_off(n);
  for (size_t i = 0; i < n; ++i) {
    in_off[i] = in_total;
    in_total += cases[i].frame.size();
    out_off[i] = out_total;
    out_total += cases[i].capacity + kGuard;  // guard bytes after every chunk's capacity
  }
  Bytes h_in(in_total + 1), h_out(out_total + 1, kGuardByte);
  for (size_t i = 0; i < n; ++i) std::memcpy(h_in.data() + in_off[i], cases[i].frame.data(), cases[i].frame.size());
  uint8_t *d_in = nullptr, *d_out = nullptr;
  CUDA_OK(cudaMalloc(&d_in, h_in.size()));
  CUDA_OK(cudaMalloc(&d_out, h_out.size()));
  CUDA_OK(cudaMemcpy(d_in, h_in.data(), h_in.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_out, h_out.data(), h_out.size(), cudaMemcpyHostToDevice));
  std::vector<const void*> in_ptrs(n);
  std::vector<void*> out_ptrs(n);
  std::vector<size_t> in_sizes(n), caps(n);
  for (size_t i = 0; i < n; ++i) {
    in_ptrs[i] = d_in + in_off[i];
    out_ptrs[i] = d_out + out_off[i];
    in_sizes[i] = cases[i].frame.size();
    caps[i] = cases[i].capacity;
  }
  void **d_in_ptrs = nullptr, **d_out_ptrs = nullptr;
  size_t *d_in_sizes = nullptr, *d_caps = nullptr, *d_sizes = nullptr;
  Status* d_status = nullptr;
  CUDA_OK(cudaMalloc(&d_in_ptrs, n * sizeof(void*)));
  CUDA_OK(cudaMalloc(&d_out_ptrs, n * sizeof(void*)));
  CUDA_OK(cudaMalloc(&d_in_sizes, n * sizeof(size_t)));
  CUDA_OK(cudaMalloc(&d_caps, n * sizeof(size_t)));
  CUDA_OK(cudaMalloc(&d_sizes, n * sizeof(size_t)));
  CUDA_OK(cudaMalloc(&d_status, n * sizeof(Status)));
  CUDA_OK(cudaMemcpy(d_in_ptrs, in_ptrs.data(), n * sizeof(void*), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_out_ptrs, out_ptrs.data(), n * sizeof(void*), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_in_sizes, in_sizes.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_caps, caps.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
  zg::DecompressOptions opts;
  size_t max_capacity = 1;
  for (const Case& c : cases) max_capacity = std::max(max_capacity, c.capacity);
  if (chunk_bound != 0) max_capacity = chunk_bound;
  opts.strategy = block_parallel ? zg::Strategy::block_parallel : zg::Strategy::one_warp;
  opts.max_uncompressed_chunk_bytes = block_parallel ? max_capacity : 0;
  if (needs != nullptr) {
    opts.chunk_needs_known = true;
    opts.chunk_needs = *needs;
  }
  size_t temp_bytes = 0;
  ASSERT_EQ(zg::get_decompress_temp_size(wave_chunks ? wave_chunks : n, block_parallel ? max_capacity : size_t{1} << 20,
                                         opts, &temp_bytes),
            zg::kSuccess);
  void* d_temp = nullptr;
  CUDA_OK(cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  if (use_graph) {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    if (prime) {
      ASSERT_EQ(zg::decompress_async(reinterpret_cast<const void* const*>(d_in_ptrs), d_in_sizes, d_out_ptrs, d_caps,
                                     d_sizes, d_status, n, d_temp, temp_bytes, opts, stream),
                zg::kSuccess);
      CUDA_OK(cudaStreamSynchronize(stream));
      // The graph must write every byte itself: back to the guard pattern, statuses cleared.
      CUDA_OK(cudaMemcpy(d_out, h_out.data(), h_out.size(), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(d_status, 0xFF, n * sizeof(Status)));
      CUDA_OK(cudaMemset(d_sizes, 0xFF, n * sizeof(size_t)));
    }
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    ASSERT_EQ(zg::decompress_async(reinterpret_cast<const void* const*>(d_in_ptrs), d_in_sizes, d_out_ptrs, d_caps,
                                   d_sizes, d_status, n, d_temp, temp_bytes, opts, stream),
              zg::kSuccess);
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaGraphLaunch(exec, stream));  // replay: same answer
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
  } else {
    ASSERT_EQ(zg::decompress_async(reinterpret_cast<const void* const*>(d_in_ptrs), d_in_sizes, d_out_ptrs, d_caps,
                                   d_sizes, d_status, n, d_temp, temp_bytes, opts, stream),
              zg::kSuccess);
  }
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(h_out.data(), d_out, h_out.size(), cudaMemcpyDeviceToHost));
  r->sizes.resize(n);
  r->statuses.resize(n);
  CUDA_OK(cudaMemcpy(r->sizes.data(), d_sizes, n * sizeof(size_t), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(r->statuses.data(), d_status, n * sizeof(Status), cudaMemcpyDeviceToHost));
  r->outputs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* o = h_out.data() + out_off[i];
    r->outputs[i].assign(o, o + cases[i].capacity);
    for (size_t k = 0; k < kGuard; ++k) {
      if (o[cases[i].capacity + k] != kGuardByte) r->guards_intact = false;
    }
  }
  cudaStreamDestroy(stream);
  for (void* p : {static_cast<void*>(d_in), static_cast<void*>(d_out), static_cast<void*>(d_in_ptrs),
                  static_cast<void*>(d_out_ptrs), static_cast<void*>(d_in_sizes), static_cast<void*>(d_caps),
                  static_cast<void*>(d_sizes), static_cast<void*>(d_status), d_temp}) {
    cudaFree(p);
  }
}

// The batch's guard bytes are intact, and every chunk has the host
// decoder's status, and on success its size and bytes.
void expect_host_statuses_and_bytes(const std::vector<Case>& cases, const BatchResult& r) {
  EXPECT_TRUE(r.guards_intact) << "a chunk wrote past its capacity";
  for (size_t i = 0; i < cases.size(); ++i) {
    Bytes host(cases[i].capacity + 1);
    size_t n = 0;
    const Status st = decode_frames(cases[i].frame.data(), cases[i].frame.size(), host.data(), cases[i].capacity, &n);
    ASSERT_EQ(r.statuses[i], st) << "#" << i << " gpu " << status_name(r.statuses[i]) << " host " << status_name(st);
    if (st == Status::ok) {
      ASSERT_EQ(r.sizes[i], n);
      ASSERT_TRUE(std::equal(host.begin(), host.begin() + n, r.outputs[i].begin())) << "#" << i;
    }
  }
}


// A macro: GTEST_SKIP only leaves the function it is written in.
#define SKIP_WITHOUT_GPU()                                        \
  do {                                                            \
    if (!zg::device_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

std::vector<Case> valid_corpus(int count, uint64_t seed, size_t max_size) {
  Rng rng(seed);
  std::vector<Case> cases;
  for (int i = 0; i < count; ++i) {
    FrameParams fp;
    fp.level = static_cast<int>(rng.below(30)) - 7;
    if (fp.level == 0) fp.level = 3;
    if (fp.level > 17 && rng.below(3) != 0) fp.level = 12;
    if (rng.below(3) == 0) fp.window_log = 10 + static_cast<int>(rng.below(10));
    fp.content_size = rng.below(2) == 0;
    fp.checksum = rng.below(2) == 0;
    if (rng.below(4) == 0) fp.flush_every = 16 + rng.below(3000);
    if (rng.below(6) == 0) fp.literal_mode = 1 + static_cast<int>(rng.below(2));
    if (rng.below(5) == 0) fp.streamed = true;
    const auto kind = static_cast<DataKind>(rng.below(static_cast<uint32_t>(DataKind::count)));
    const size_t size = rng.below(4) == 0 ? rng.below(300) : rng.below(static_cast<uint32_t>(max_size));
    Case c;
    c.expected = make_data(kind, size, rng.next());
    c.frame = compress(c.expected, fp);
    if (rng.below(5) == 0) {  // a second frame and a skippable frame in the same chunk
      const Bytes more = make_data(DataKind::text, rng.below(20000), rng.next());
      const Bytes f2 = compress(more, fp);
      const Bytes skip = skippable_frame(1, rng.below(40), rng.next());
      c.frame.insert(c.frame.end(), skip.begin(), skip.end());
      c.frame.insert(c.frame.end(), f2.begin(), f2.end());
      c.expected.insert(c.expected.end(), more.begin(), more.end());
    }
    c.capacity = c.expected.size() + (rng.below(2) ? 0 : rng.below(100));
    c.what = std::string(data_kind_name(kind)) + " " + fp.describe();
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST(ZstdGpu, DifferentialCorpusIsBitExact) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> cases = valid_corpus(2500, 4711, 200000);
  // Every level once more on an ERA5-like field, 1 MiB each.
  for (int level = -5; level <= 22; ++level) {
    if (level == 0) continue;
    FrameParams fp;
    fp.level = level;
    fp.checksum = true;
    Case c;
    c.expected = make_data(DataKind::float_field, level >= 18 ? 200000 : 1 << 20, 900 + level);
    c.frame = compress(c.expected, fp);
    c.capacity = c.expected.size();
    c.what = "float level " + std::to_string(level);
    cases.push_back(std::move(c));
  }
  BatchResult r;
  run_batch(cases, &r);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(r.guards_intact);
  for (size_t i = 0; i < cases.size(); ++i) {
    ASSERT_EQ(r.statuses[i], Status::ok) << status_name(r.statuses[i]) << " #" << i << " " << cases[i].what;
    ASSERT_EQ(r.sizes[i], cases[i].expected.size()) << cases[i].what;
    ASSERT_TRUE(std::equal(cases[i].expected.begin(), cases[i].expected.end(), r.outputs[i].begin()))
        << "#" << i << " " << cases[i].what;
  }
}

TEST(ZstdGpu, CorruptInputMatchesHostStatusesAndStaysInBounds) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> base = valid_corpus(300, 99, 60000);
  Rng rng(123);
  std::vector<Case> cases;
  for (const Case& b : base) {
    for (int t = 0; t < 6; ++t) {
      Case c = b;
      switch (t) {
        case 0: c.frame.resize(rng.below(static_cast<uint32_t>(c.frame.size()))); break;          // truncated
        case 1: c.capacity = c.expected.empty() ? 0 : rng.below(static_cast<uint32_t>(c.expected.size())); break;
        default:
          for (int k = 0; k < t; ++k) c.frame[rng.below(static_cast<uint32_t>(c.frame.size()))] ^= uint8_t(1u << rng.below(8));
          break;
      }
      cases.push_back(std::move(c));
    }
  }
  BatchResult r;
  run_batch(cases, &r);
  if (HasFatalFailure()) return;
  expect_host_statuses_and_bytes(cases, r);
}

TEST(ZstdGpu, GraphCaptureAndEdgeCases) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> cases = valid_corpus(64, 7, 100000);
  Case empty;  // an empty chunk decodes to nothing
  empty.capacity = 0;
  cases.push_back(empty);
  Case garbage;
  garbage.frame = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  garbage.capacity = 100;
  cases.push_back(garbage);
  BatchResult r;
  run_batch(cases, &r, /*use_graph=*/true);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(r.guards_intact);
  for (size_t i = 0; i < 64; ++i) {
    ASSERT_EQ(r.statuses[i], Status::ok) << i;
    ASSERT_TRUE(std::equal(cases[i].expected.begin(), cases[i].expected.end(), r.outputs[i].begin()));
  }
  EXPECT_EQ(r.statuses[64], Status::ok);
  EXPECT_EQ(r.sizes[64], 0u);
  EXPECT_EQ(r.statuses[65], Status::unknown_frame);
  size_t temp = 0;
  EXPECT_EQ(zg::get_decompress_temp_size(0, 0, &temp), zg::kSuccess);
  EXPECT_EQ(zg::decompress_async(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, {}, nullptr),
            zg::kSuccess);
  EXPECT_EQ(zg::decompress_async(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 3, nullptr, 0, {}, nullptr),
            zg::kInvalidArgument);
}

// A large batch of ERA5-like chunks; bench/gpu/zstd.sh runs this one under
// compute-sanitizer memcheck and racecheck. ZSTD_GPU_TEST_CHUNKS sets the size.
TEST(ZstdGpu, LargeBatch) {
  SKIP_WITHOUT_GPU();
  const char* env = std::getenv("ZSTD_GPU_TEST_CHUNKS");
  const int chunks = env ? std::atoi(env) : 512;
  std::vector<Case> cases;
  Rng rng(1);
  for (int i = 0; i < chunks; ++i) {
    FrameParams fp;
    fp.level = (i % 4 == 0) ? 1 : (i % 4 == 1) ? 3 : (i % 4 == 2) ? 9 : -1;
    fp.content_size = (i & 1) != 0;
    fp.checksum = (i % 3) == 0;
    Case c;
    const auto kind = i % 5 == 0 ? DataKind::mixed : DataKind::float_field;
    c.expected = make_data(kind, 64 * 1024 + (i % 7) * 1000, rng.next());
    c.frame = compress(c.expected, fp);
    c.capacity = c.expected.size();
    cases.push_back(std::move(c));
  }
  BatchResult r;
  run_batch(cases, &r);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(r.guards_intact);
  for (size_t i = 0; i < cases.size(); ++i) {
    ASSERT_EQ(r.statuses[i], Status::ok) << i;
    ASSERT_TRUE(std::equal(cases[i].expected.begin(), cases[i].expected.end(), r.outputs[i].begin())) << i;
  }
}


// The block-parallel path (DecompressOptions::block_parallel): the same
// corpora, bit-exact and with the host decoder's statuses; multi-block frames
// of every level; a temp of a few chunks so the batch runs in waves.
std::vector<Case> multi_block_corpus() {
  std::vector<Case> cases;
  for (int level = -5; level <= 22; ++level) {
    if (level == 0) continue;
    for (const DataKind kind : {DataKind::float_field, DataKind::text, DataKind::mixed}) {
      FrameParams fp;
      fp.level = level;
      fp.checksum = level % 2 == 0;
      fp.content_size = level % 3 != 0;
      Case c;
      c.expected = make_data(kind, level >= 18 ? 300000 : 1 << 20, 1700 + level);
      c.frame = compress(c.expected, fp);
      c.capacity = c.expected.size() + (level % 4 == 0 ? 77 : 0);
      c.what = std::string(data_kind_name(kind)) + " level " + std::to_string(level);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

void expect_bit_exact(const std::vector<Case>& cases, const BatchResult& r) {
  EXPECT_TRUE(r.guards_intact);
  for (size_t i = 0; i < cases.size(); ++i) {
    ASSERT_EQ(r.statuses[i], Status::ok) << status_name(r.statuses[i]) << " #" << i << " " << cases[i].what;
    ASSERT_EQ(r.sizes[i], cases[i].expected.size()) << cases[i].what;
    ASSERT_TRUE(std::equal(cases[i].expected.begin(), cases[i].expected.end(), r.outputs[i].begin()))
        << "#" << i << " " << cases[i].what;
  }
}

TEST(ZstdGpuBlockParallel, DifferentialCorpusIsBitExact) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> cases = valid_corpus(2500, 4711, 200000);
  const std::vector<Case> big = multi_block_corpus();
  cases.insert(cases.end(), big.begin(), big.end());
  BatchResult r;
  run_batch(cases, &r, false, /*block_parallel=*/true);
  if (HasFatalFailure()) return;
  expect_bit_exact(cases, r);
  // Match copy by chunk (a warp per chunk, its matches in order) for every chunk.
  BatchResult by_chunk;
  run_batch(cases, &by_chunk, false, /*block_parallel=*/true, 0, false, 0, 0, zx::MatchCopy::by_chunk);
  if (HasFatalFailure()) return;
  SCOPED_TRACE("match copy by chunk");
  expect_bit_exact(cases, by_chunk);
}

TEST(ZstdGpuBlockParallel, WavesAndGraphCapture) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> cases = multi_block_corpus();
  cases.resize(40);
  BatchResult r;
  run_batch(cases, &r, /*use_graph=*/true, /*block_parallel=*/true, /*wave_chunks=*/3);
  if (HasFatalFailure()) return;
  expect_bit_exact(cases, r);
}

// The same, captured after a first decode on the stream: each wave's weight
// classes (light and heavy chunks: levels -5 to 22 differ widely in
// sequences) fork to the decoder's second stream and join back inside the
// graph; replayed twice.
TEST(ZstdGpuBlockParallel, WeightClassesUnderGraphCapture) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> cases = multi_block_corpus();
  cases.resize(60);
  BatchResult r;
  run_batch(cases, &r, /*use_graph=*/true, /*block_parallel=*/true, /*wave_chunks=*/7, /*prime=*/true);
  if (HasFatalFailure()) return;
  expect_bit_exact(cases, r);
  // Match copy in 4 stages: each stage's cross-block match copy queue is reset inside the graph,
  // on both classes' streams.
  BatchResult staged;
  run_batch(cases, &staged, /*use_graph=*/true, /*block_parallel=*/true, /*wave_chunks=*/7, /*prime=*/true, 0,
            /*match_stages=*/4);
  if (HasFatalFailure()) return;
  expect_bit_exact(cases, staged);
  // Match copy by chunk on both classes' streams.
  BatchResult by_chunk;
  run_batch(cases, &by_chunk, /*use_graph=*/true, /*block_parallel=*/true, /*wave_chunks=*/7, /*prime=*/true, 0, 0,
            zx::MatchCopy::by_chunk);
  if (HasFatalFailure()) return;
  {
    SCOPED_TRACE("match copy by chunk");
    expect_bit_exact(cases, by_chunk);
  }
  // Two lanes of waves: with a chunk bound of 1 MiB (no chunk decodes to
  // more) the waves alternate between the stream and the decoder's second
  // lane, each with half the temp (3 chunks), and each lane's weight
  // classes fork and join inside the graph too.
  BatchResult lanes;
  run_batch(cases, &lanes, /*use_graph=*/true, /*block_parallel=*/true, /*wave_chunks=*/7, /*prime=*/true,
            /*chunk_bound=*/size_t{1} << 20);
  if (HasFatalFailure()) return;
  SCOPED_TRACE("two lanes of waves");
  expect_bit_exact(cases, lanes);
}

TEST(ZstdGpuBlockParallel, CorruptInputMatchesHostStatusesAndStaysInBounds) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> base = valid_corpus(300, 99, 60000);
  std::vector<Case> big = multi_block_corpus();
  big.resize(30);
  base.insert(base.end(), big.begin(), big.end());
  Rng rng(321);
  std::vector<Case> cases;
  for (const Case& b : base) {
    for (int t = 0; t < 6; ++t) {
      Case c = b;
      switch (t) {
        case 0: c.frame.resize(rng.below(static_cast<uint32_t>(c.frame.size()))); break;
        case 1: c.capacity = c.expected.empty() ? 0 : rng.below(static_cast<uint32_t>(c.expected.size())); break;
        default:
          for (int k = 0; k < t; ++k) c.frame[rng.below(static_cast<uint32_t>(c.frame.size()))] ^= uint8_t(1u << rng.below(8));
          break;
      }
      cases.push_back(std::move(c));
    }
  }
  BatchResult r;
  run_batch(cases, &r, false, /*block_parallel=*/true);
  if (HasFatalFailure()) return;
  expect_host_statuses_and_bytes(cases, r);
  // With match copy in stages: a block that resolution failed is in no stage's work.
  BatchResult staged;
  run_batch(cases, &staged, false, /*block_parallel=*/true, 0, false, 0, /*match_stages=*/5);
  if (HasFatalFailure()) return;
  expect_host_statuses_and_bytes(cases, staged);
  // Match copy by chunk: only the blocks before a chunk's first error.
  BatchResult by_chunk;
  run_batch(cases, &by_chunk, false, /*block_parallel=*/true, 0, false, 0, 0, zx::MatchCopy::by_chunk);
  if (HasFatalFailure()) return;
  SCOPED_TRACE("match copy by chunk");
  expect_host_statuses_and_bytes(cases, by_chunk);
}

// The largest needs of the batch's chunks, measured on the host as the read path does.
zg::ChunkNeeds most_needs(const std::vector<Case>& cases) {
  size_t bound = 1;
  for (const Case& c : cases) bound = std::max(bound, c.capacity);
  zg::ChunkNeeds most;
  for (const Case& c : cases) {
    const zg::ChunkNeeds n = zg::measure_chunk_needs(c.frame.data(), c.frame.size(), bound);
    most.literal_bytes = std::max(most.literal_bytes, n.literal_bytes);
    most.sequences = std::max(most.sequences, n.sequences);
  }
  return most;
}

// Scratch laid out for the needs measured on the host (the read path's
// way): bit-exact, in waves and not. Laid out for a quarter of them, the
// chunks that need more fall back to the one-warp path: still bit-exact,
// nothing written outside a chunk; and corrupt chunks keep the host
// decoder's statuses either way.
TEST(ZstdGpuBlockParallel, ScratchLaidOutForMeasuredNeeds) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> cases = multi_block_corpus();
  const zg::ChunkNeeds most = most_needs(cases);
  ASSERT_GT(most.sequences, 0u);
  ASSERT_GT(most.literal_bytes, 0u);
  size_t bound = 1;
  for (const Case& c : cases) bound = std::max(bound, c.capacity);
  size_t worst = 0, measured = 0;
  zg::DecompressOptions o;
  o.strategy = zg::Strategy::block_parallel;
  o.max_uncompressed_chunk_bytes = bound;
  ASSERT_EQ(zg::get_decompress_temp_size(cases.size(), bound, o, &worst), zg::kSuccess);
  o.chunk_needs_known = true;
  o.chunk_needs = most;
  ASSERT_EQ(zg::get_decompress_temp_size(cases.size(), bound, o, &measured), zg::kSuccess);
  EXPECT_LT(measured, worst);
  for (const size_t wave : {size_t{0}, size_t{5}}) {
    SCOPED_TRACE("wave " + std::to_string(wave));
    BatchResult r;
    run_batch(cases, &r, false, /*block_parallel=*/true, wave, false, 0, 0, zx::MatchCopy::automatic, &most);
    if (HasFatalFailure()) return;
    expect_bit_exact(cases, r);
  }
  const zg::ChunkNeeds quarter{most.literal_bytes / 4, most.sequences / 4};
  BatchResult r;
  run_batch(cases, &r, false, /*block_parallel=*/true, 0, false, 0, 0, zx::MatchCopy::automatic, &quarter);
  if (HasFatalFailure()) return;
  {
    SCOPED_TRACE("a quarter of the needs");
    expect_bit_exact(cases, r);
  }
  Rng rng(77);
  std::vector<Case> corrupt;
  for (const Case& b : cases) {
    Case c = b;
    for (int k = 0; k < 3; ++k) c.frame[rng.below(static_cast<uint32_t>(c.frame.size()))] ^= uint8_t(1u << rng.below(8));
    corrupt.push_back(std::move(c));
  }
  const zg::ChunkNeeds corrupt_most = most_needs(corrupt);
  BatchResult rc;
  run_batch(corrupt, &rc, false, /*block_parallel=*/true, 0, false, 0, 0, zx::MatchCopy::automatic, &corrupt_most);
  if (HasFatalFailure()) return;
  SCOPED_TRACE("corrupt chunks");
  expect_host_statuses_and_bytes(corrupt, rc);
}

// Frames of ~40 small blocks whose matches reach many blocks back (and
// again with match copy in stages, whose walks stop at each stage's floor): execution
// runs a warp per block, and bytes read from earlier blocks are followed
// back through chains of their matches; repeat offsets cross every block
// boundary (resolution's scan). The blocks must fit the chunk's block slots,
// or the chunk goes to the one-warp kernel and this tests nothing of phase
// C or D (flushes every 20 KiB did, once slots became 32 KiB each).
constexpr size_t kManyBlocksFlush = 48 * 1024;
static_assert(kManyBlocksFlush >= zg::BlockParallelPolicySm90::kBytesPerBlockSlot,
              "the test's blocks must fit the block-parallel decoder's slots");
TEST(ZstdGpuBlockParallel, MatchesAcrossManyBlocks) {
  SKIP_WITHOUT_GPU();
  std::vector<Case> cases;
  Rng rng(5);
  for (int i = 0; i < 24; ++i) {
    FrameParams fp;
    fp.level = i % 3 == 0 ? 1 : i % 3 == 1 ? 3 : 19;
    fp.window_log = 23;
    fp.checksum = i % 2 == 0;
    fp.flush_every = kManyBlocksFlush;
    Case c;
    c.expected = make_data(i % 2 == 0 ? DataKind::repetitive : DataKind::text, 2 * 1024 * 1024 - i * 1000, rng.next());
    c.frame = compress(c.expected, fp);
    c.capacity = c.expected.size();
    c.what = "many blocks #" + std::to_string(i);
    cases.push_back(std::move(c));
  }
  BatchResult r;
  run_batch(cases, &r, false, /*block_parallel=*/true);
  if (HasFatalFailure()) return;
  expect_bit_exact(cases, r);
  // Match copy in stages (the walks stop at each stage's floor): 2, 3 and the most.
  for (const uint32_t stages : {2u, 3u, zg::BlockParallelPolicySm90::kMaxMatchStages}) {
    BatchResult staged;
    run_batch(cases, &staged, false, /*block_parallel=*/true, 0, false, 0, stages);
    if (HasFatalFailure()) return;
    SCOPED_TRACE("match copy in " + std::to_string(stages) + " stages");
    expect_bit_exact(cases, staged);
  }
  BatchResult by_chunk;
  run_batch(cases, &by_chunk, false, /*block_parallel=*/true, 0, false, 0, 0, zx::MatchCopy::by_chunk);
  if (HasFatalFailure()) return;
  SCOPED_TRACE("match copy by chunk");
  expect_bit_exact(cases, by_chunk);
}

// A caller's max_uncompressed_chunk_bytes sizes the block-parallel scratch,
// but the walk bounds only a chunk's literals and sequences by it: chunks of
// RLE blocks or long matches decode to more. With room in their output they
// must still decode (the one-warp kernel takes them over), and the chunks
// beside them, of several blocks each (their execution walks the granule
// index that an overflowing neighbour's entries would have overwritten),
// must decode as if alone.
TEST(ZstdGpuBlockParallel, ChunksLargerThanTheBoundStillDecode) {
  SKIP_WITHOUT_GPU();
  constexpr size_t kBound = 64 * 1024;
  std::vector<Case> cases;
  Rng rng(77);
  for (int i = 0; i < 48; ++i) {
    FrameParams fp;
    Case c;
    switch (i % 4) {
      case 0:  // RLE blocks: no literals, no sequences, 8-16x the bound
        c.expected = make_data(DataKind::zeros, kBound * (8 + i % 9), rng.next());
        fp.level = 3;
        break;
      case 1:  // long matches: few literals and sequences, 3x the bound
        c.expected = make_data(DataKind::repetitive, 3 * kBound + i * 100, rng.next());
        fp.level = 19;
        break;
      default:  // within the bound, in blocks of 8 KiB (match copy walks back through them)
        c.expected = make_data(i % 3 == 0 ? DataKind::text : DataKind::float_field, kBound - i * 10, rng.next());
        fp.level = i % 8 == 2 ? 19 : 3;
        fp.flush_every = 8 * 1024;
        break;
    }
    fp.checksum = i % 2 == 0;
    c.frame = compress(c.expected, fp);
    c.capacity = c.expected.size();
    c.what = "case " + std::to_string(i) + " of " + std::to_string(c.expected.size()) + " bytes";
    cases.push_back(std::move(c));
  }
  BatchResult r;
  run_batch(cases, &r, false, /*block_parallel=*/true, 0, false, kBound);
  if (HasFatalFailure()) return;
  expect_bit_exact(cases, r);
  BatchResult by_chunk;
  run_batch(cases, &by_chunk, false, /*block_parallel=*/true, 0, false, kBound, 0, zx::MatchCopy::by_chunk);
  if (HasFatalFailure()) return;
  SCOPED_TRACE("match copy by chunk");
  expect_bit_exact(cases, by_chunk);
}

// Sequences per compressed block of a frame, as table decoding reads them (the
// decoder's host build).
double mean_sequences_per_block(const Bytes& frame, size_t capacity) {
  const ChunkLimits limits = chunk_limits(capacity, 0xFFFFFFFFu, 0xFFFFFFFFu);
  ChunkPlan plan;
  walk_chunk(frame.data(), frame.size(), limits, &plan, nullptr, nullptr);
  std::vector<FrameRecord> frames(plan.frame_count);
  std::vector<BlockRecord> blocks(plan.block_count);
  walk_chunk(frame.data(), frame.size(), limits, &plan, frames.data(), blocks.data());
  auto ws = std::make_unique<Workspace>();
  auto entropy = std::make_unique<BlockEntropy>();
  reset_workspace(*ws);
  uint64_t sequences = 0, compressed = 0;
  for (BlockRecord& b : blocks) {
    if (b.type != BlockType::compressed) continue;
    prepare_block_sections(SerialGroup{}, *ws, frame.data(), blocks.data(), b, frames[b.frame].block_size_max, *entropy);
    sequences += b.sequence_count;
    ++compressed;
  }
  return compressed == 0 ? 0.0 : static_cast<double>(sequences) / static_cast<double>(compressed);
}

// Level 19 on the bench's ERA5-like fields (libzstd's splitter cuts ~50
// KiB blocks of ~8,000-11,000 sequences): long blocks, so sequence decoding takes them
// longest chain first (policy.cuh's kOrderedSequences); match copy by the rule
// (256 KiB by chunk, 1 MiB by block, in stages, in-block match copy in sequence decoding's order), and
// both ways at both sizes. The corpora above have shorter blocks.
TEST(ZstdGpuBlockParallel, LongBlocksOfTheBenchsData) {
  SKIP_WITHOUT_GPU();
  constexpr size_t kKiB = 1024;
  const std::vector<uint8_t> field = zarrgpu::bench::make_era5_like(12 * 1024 * kKiB, 4);
  for (const size_t chunk : {256 * kKiB, 1024 * kKiB}) {
    std::vector<Case> cases;
    double sequences = 0;
    for (size_t at = 0; at + chunk <= field.size(); at += chunk) {
      FrameParams fp;
      fp.level = 19;
      fp.checksum = at % (2 * chunk) == 0;
      Case c;
      c.expected.assign(field.begin() + at, field.begin() + at + chunk);
      c.frame = compress(c.expected, fp);
      c.capacity = chunk;
      c.what = std::to_string(chunk / kKiB) + " KiB chunk at " + std::to_string(at);
      sequences += mean_sequences_per_block(c.frame, chunk);
      cases.push_back(std::move(c));
    }
    ASSERT_GE(sequences / cases.size(), zg::BlockParallelPolicySm90::kOrderedSequences)
        << "blocks too short to take sequence decoding's order";
    SCOPED_TRACE(std::to_string(chunk / kKiB) + " KiB chunks");
    for (const zx::MatchCopy mode : {zx::MatchCopy::automatic, zx::MatchCopy::by_block, zx::MatchCopy::by_chunk}) {
      BatchResult r;
      run_batch(cases, &r, false, /*block_parallel=*/true, 0, false, 0, 0, mode);
      if (HasFatalFailure()) return;
      SCOPED_TRACE(mode == zx::MatchCopy::by_block   ? "match copy by block"
                   : mode == zx::MatchCopy::by_chunk ? "match copy by chunk"
                                                  : "match copy by the rule");
      expect_bit_exact(cases, r);
    }
  }
}

// Large multi-block chunks; bench/gpu/zstd.sh runs this one under
// compute-sanitizer too (ZSTD_GPU_TEST_CHUNKS sets the size).
TEST(ZstdGpuBlockParallel, LargeBatch) {
  SKIP_WITHOUT_GPU();
  const char* env = std::getenv("ZSTD_GPU_TEST_CHUNKS");
  const int chunks = env ? std::max(1, std::atoi(env) / 8) : 64;
  std::vector<Case> cases;
  Rng rng(2);
  for (int i = 0; i < chunks; ++i) {
    FrameParams fp;
    fp.level = (i % 4 == 0) ? 1 : (i % 4 == 1) ? 3 : (i % 4 == 2) ? 9 : -1;
    fp.checksum = (i % 3) == 0;
    Case c;
    c.expected = make_data(i % 5 == 0 ? DataKind::mixed : DataKind::float_field, 1024 * 1024 + (i % 7) * 1000, rng.next());
    c.frame = compress(c.expected, fp);
    c.capacity = c.expected.size();
    cases.push_back(std::move(c));
  }
  BatchResult r;
  run_batch(cases, &r, false, /*block_parallel=*/true);
  if (HasFatalFailure()) return;
  expect_bit_exact(cases, r);
}

}  // namespace
}  // namespace zarrgpu::zstd::testing
