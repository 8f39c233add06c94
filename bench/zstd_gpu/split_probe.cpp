// Diagnostic (not a benchmark of record): how much would the block-parallel
// decoder gain if chunks of few sequences ran their later phases while the
// chunks of many sequences still decode theirs? Same ERA5-like chunks as
// zstd_gpu_bench; the batch is decoded (a) in one call, (b) in two calls on
// two streams split by index, (c) in k calls on k streams, chunks sorted by
// their sequence count (host count) and cut into classes at fractions of the
// chunks. Prints the median time of each; every variant's output is checked.
// Run with ZARRGPU_ZSTD_CLASSES=1 to see the calls without the decoder's own
// weight classes (dispatch_decompress.cu), as the probe first measured.
//
//   zstd_split_probe [level 19] [chunk KiB 64] [GiB 0.25] [runs 7]
#include <cuda_runtime.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "bench_data.hpp"
#include "codec/bytes_to_bytes/zstd/decoder/decode_frames_block_parallel.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"

namespace zg = zarrgpu::zstd::gpu;
namespace zz = zarrgpu::zstd;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

static void parallel_for(size_t n, const std::function<void(size_t)>& f) {
  zarrgpu::bench::parallel_for(n, std::max(1u, std::thread::hardware_concurrency()), f);
}

static uint32_t sequences_of(const std::vector<uint8_t>& c, size_t chunk) {
  const zz::ChunkLimits limits = zz::chunk_limits(chunk, 0xFFFFFFFFu, 0xFFFFFFFFu);
  zz::ChunkPlan plan;
  zz::walk_chunk(c.data(), c.size(), limits, &plan, nullptr, nullptr);
  std::vector<zz::FrameRecord> frames(plan.frame_count);
  std::vector<zz::BlockRecord> blocks(plan.block_count);
  zz::walk_chunk(c.data(), c.size(), limits, &plan, frames.data(), blocks.data());
  auto ws = std::make_unique<zz::Workspace>();
  zz::reset_workspace(*ws);
  auto e = std::make_unique<zz::BlockEntropy>();
  uint32_t total = 0;
  for (auto& b : blocks) {
    if (b.type != zz::BlockType::compressed) continue;
    zz::prepare_block_sections(zz::SerialGroup{}, *ws, c.data(), blocks.data(), b, frames[b.frame].block_size_max, *e);
    total += b.sequence_count;
  }
  return total;
}

struct Group {  // one call's chunks, on device
  size_t n = 0;
  void **in_ptrs = nullptr, **out_ptrs = nullptr;
  size_t *in_sizes = nullptr, *caps = nullptr, *sizes = nullptr;
  zz::Status* st = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
};

int main(int argc, char** argv) {
  const int level = argc > 1 ? std::atoi(argv[1]) : 19;
  const size_t chunk = size_t(argc > 2 ? std::atoi(argv[2]) : 64) << 10;
  const double gib = argc > 3 ? std::atof(argv[3]) : 0.25;
  const int runs = argc > 4 ? std::atoi(argv[4]) : 7;
  const size_t bytes = size_t(gib * double(1ull << 30)) / chunk * chunk, n = bytes / chunk;
  const auto data = zarrgpu::bench::make_era5_like(bytes, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::vector<uint8_t>> comp(n);
  std::vector<uint32_t> seqs(n);
  parallel_for(n, [&](size_t i) {
    comp[i].resize(ZSTD_compressBound(chunk));
    comp[i].resize(ZSTD_compress(comp[i].data(), comp[i].size(), data.data() + i * chunk, chunk, level));
    seqs[i] = sequences_of(comp[i], chunk);
  });
  std::vector<uint32_t> sorted = seqs;
  std::sort(sorted.begin(), sorted.end());
  std::printf("level %d, %zu KiB chunks, %zu chunks: sequences a chunk p10 %u p50 %u p90 %u max %u\n", level,
              chunk >> 10, n, sorted[n / 10], sorted[n / 2], sorted[n * 9 / 10], sorted[n - 1]);
  size_t in_total = 0;
  std::vector<size_t> in_off(n);
  for (size_t i = 0; i < n; ++i) in_off[i] = in_total, in_total += (comp[i].size() + 255) / 256 * 256;
  uint8_t *d_in, *d_out;
  CK(cudaMalloc(&d_in, in_total));
  CK(cudaMalloc(&d_out, bytes));
  for (size_t i = 0; i < n; ++i) CK(cudaMemcpy(d_in + in_off[i], comp[i].data(), comp[i].size(), cudaMemcpyHostToDevice));
  zg::DecompressOptions opt;
  opt.max_uncompressed_chunk_bytes = chunk;
  opt.strategy = zg::Strategy::block_parallel;
  auto make_group = [&](const std::vector<size_t>& ids) {
    Group g;
    g.n = ids.size();
    std::vector<void*> ip(g.n), op(g.n);
    std::vector<size_t> is(g.n), cap(g.n, chunk);
    for (size_t k = 0; k < g.n; ++k) ip[k] = d_in + in_off[ids[k]], op[k] = d_out + ids[k] * chunk, is[k] = comp[ids[k]].size();
    CK(cudaMalloc(&g.in_ptrs, g.n * 8)); CK(cudaMalloc(&g.out_ptrs, g.n * 8));
    CK(cudaMalloc(&g.in_sizes, g.n * 8)); CK(cudaMalloc(&g.caps, g.n * 8)); CK(cudaMalloc(&g.sizes, g.n * 8));
    CK(cudaMalloc(&g.st, g.n * sizeof(zz::Status)));
    CK(cudaMemcpy(g.in_ptrs, ip.data(), g.n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.out_ptrs, op.data(), g.n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.in_sizes, is.data(), g.n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g.caps, cap.data(), g.n * 8, cudaMemcpyHostToDevice));
    zg::get_decompress_temp_size(g.n, chunk, opt, &g.temp_bytes);
    CK(cudaMalloc(&g.temp, g.temp_bytes));
    return g;
  };
  std::vector<cudaStream_t> streams(4);
  for (auto& s : streams) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t start, done[4];
  CK(cudaEventCreate(&start));
  for (auto& e : done) CK(cudaEventCreate(&e));
  // variant: groups of chunk ids; each on its own stream, all forked from stream 0
  auto run_variant = [&](std::vector<Group>& gs) {
    CK(cudaEventRecord(start, streams[0]));
    for (size_t k = 1; k < gs.size(); ++k) CK(cudaStreamWaitEvent(streams[k], start, 0));
    for (size_t k = 0; k < gs.size(); ++k) {
      // heaviest first in launch order
      Group& g = gs[gs.size() - 1 - k];
      cudaStream_t s = streams[gs.size() - 1 - k];
      if (zg::decompress_async(g.in_ptrs, g.in_sizes, g.out_ptrs, g.caps, g.sizes, g.st, g.n, g.temp, g.temp_bytes, opt, s) != 0) std::exit(3);
    }
    for (size_t k = 1; k < gs.size(); ++k) { CK(cudaEventRecord(done[k], streams[k])); CK(cudaStreamWaitEvent(streams[0], done[k], 0)); }
    CK(cudaEventRecord(done[0], streams[0]));
    CK(cudaEventSynchronize(done[0]));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, done[0]));
    return double(ms);
  };
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return seqs[a] < seqs[b]; });
  struct Variant { std::string name; std::vector<Group> gs; std::vector<double> t; };
  std::vector<Variant> vs;
  auto by_cuts = [&](const std::string& name, const std::vector<size_t>& ord, std::vector<double> cuts) {
    Variant v{name, {}, {}};
    size_t prev = 0;
    cuts.push_back(1.0);
    for (double c : cuts) {
      const size_t end = size_t(std::llround(c * double(n)));
      v.gs.push_back(make_group(std::vector<size_t>(ord.begin() + prev, ord.begin() + end)));
      prev = end;
    }
    vs.push_back(std::move(v));
  };
  std::vector<size_t> ident(n);
  std::iota(ident.begin(), ident.end(), 0);
  by_cuts("one call", ident, {});
  by_cuts("2 by index", ident, {0.5});
  by_cuts("2 by seqs 50%", order, {0.5});
  by_cuts("2 by seqs 70%", order, {0.7});
  by_cuts("2 by seqs 85%", order, {0.85});
  by_cuts("3 by seqs 40/75%", order, {0.4, 0.75});
  by_cuts("4 by seqs 30/55/80%", order, {0.3, 0.55, 0.8});
  // The heaviest chunk alone, then the lightest half alone: what one
  // chunk's serial chains take with the GPU to themselves.
  const size_t heaviest_alone = vs.size();
  vs.push_back(Variant{"heaviest chunk alone", {make_group({order.back()})}, {}});
  vs.push_back(Variant{"lightest half alone", {make_group(std::vector<size_t>(order.begin(), order.begin() + n / 2))}, {}});
  if (argc > 5 && std::strcmp(argv[5], "alone") == 0) {
    // For a profiler: the whole batch in one call, then the heaviest chunk alone, once each.
    run_variant(vs[0].gs);
    run_variant(vs[heaviest_alone].gs);
    std::printf("ran the batch, then its heaviest chunk alone (%u sequences)\n", seqs[order.back()]);
    return 0;
  }
  for (auto& v : vs) run_variant(v.gs);  // warm-up
  for (int r = 0; r < runs; ++r)
    for (auto& v : vs) v.t.push_back(run_variant(v.gs));
  std::vector<uint8_t> h(bytes);
  bool ok = true;
  for (auto& v : vs) {
    size_t covered = 0;
    for (auto& g : v.gs) covered += g.n;
    CK(cudaMemset(d_out, 0, bytes));
    run_variant(v.gs);
    CK(cudaMemcpy(h.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    const bool same = covered != n || std::memcmp(h.data(), data.data(), bytes) == 0;
    ok = ok && same;
    std::sort(v.t.begin(), v.t.end());
    const double med = v.t[v.t.size() / 2];
    std::printf("  %-22s %7.3f ms  %6.2f GB/s  x%.3f%s\n", v.name.c_str(), med, bytes / med / 1e6,
                vs[0].t[vs[0].t.size() / 2] / med, same ? "" : "  WRONG");
  }
  return ok ? 0 : 1;
}
