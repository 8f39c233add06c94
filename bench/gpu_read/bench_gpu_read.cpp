// Reads of an ERA5-like array straight into GPU memory, and the limits they
// are measured against.
//
//   bench_gpu_read STORE [--array data] [--mode full|pairs|steps] [--pairs 100] [--steps 8] [--max-seconds S]
//                  [--repeat R] [--seed S]
//   bench_gpu_read STORE --limits [--threads N]
//
// full: the whole array into one device buffer, R times. pairs: --pairs random
// pairs of consecutive time steps (data[t:t+2]), each into a device buffer;
// --max-seconds stops a repeat's pairs early (the JSON says how many ran).
// steps: --pairs reads of --steps random distinct time steps each (sorted, one
// orthogonal selection: a loader's or zarr-python's batch), with the medians
// of every read's breakdown, to see where a small read's time goes.
// Prints one JSON object: decoded GB/s landed on the GPU (median of R) and
// zarrgpu's breakdown of the last run (last_device_read_stats). The
// process pins its staging ring first, untimed (engine::prepare_device_read,
// "seconds_prepare"), as a loader would at start: a cold run then times
// the reads against the disk, not the pinning.
// --limits: pinned host->device copies, parallel pread of the chunk files
// from the page cache on N threads, libzstd decoding them on all cores.
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/device_read/device_read.hpp"
#include "gpu/cuda_buffer.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

using namespace zarrgpu;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Options {
  std::string store, array = "data", mode = "full";
  int pairs = 100, repeat = 3, steps = 8;
  double max_seconds = 0;  // pairs: 0 = no cap
  unsigned threads = 16;
  std::uint64_t seed = 1;
  bool limits = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "missing value for %s\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--array") o.array = next();
    else if (a == "--mode") o.mode = next();
    else if (a == "--pairs") o.pairs = std::stoi(next());
    else if (a == "--steps") o.steps = std::stoi(next());
    else if (a == "--repeat") o.repeat = std::stoi(next());
    else if (a == "--max-seconds") o.max_seconds = std::stod(next());
    else if (a == "--threads") o.threads = std::stoul(next());
    else if (a == "--seed") o.seed = std::stoull(next());
    else if (a == "--limits") o.limits = true;
    else if (o.store.empty()) o.store = a;
    else { std::fprintf(stderr, "unexpected argument %s\n", a.c_str()); std::exit(2); }
  }
  if (o.store.empty()) { std::fprintf(stderr, "usage: bench_gpu_read STORE [--mode full|pairs] [--limits]\n"); std::exit(2); }
  return o;
}

void print_stats(const engine::DeviceReadStats& s) {
  std::printf(
      "\"stats\": {\"chunks\": %llu, \"missing\": %llu, \"gpu_decoded\": %llu, \"cpu_decoded\": %llu, "
      "\"decoder_codec\": \"%s\", \"decoder_gpu_chunks\": %llu, \"decoder_cpu_chunks\": %llu, "
      "\"decoder_returned_chunks\": %llu, \"decoder_rule\": \"%s\", \"batches\": %llu, "
      "\"bytes_read\": %llu, \"bytes_decoded\": %llu, \"seconds_total\": %.6f, \"seconds_io\": %.6f, "
      "\"read_thread_seconds\": %.6f, \"cpu_decode_thread_seconds\": %.6f, \"seconds_h2d\": %.6f, "
      "\"seconds_gpu_decode\": %.6f, \"seconds_place\": %.6f, \"io_path\": \"%s\", \"io_detail\": \"%s\"}",
      (unsigned long long)s.chunks, (unsigned long long)s.missing_chunks, (unsigned long long)s.gpu_decoded_chunks,
      (unsigned long long)s.cpu_decoded_chunks, s.decoder_codec.c_str(), (unsigned long long)s.decoder_gpu_chunks,
      (unsigned long long)s.decoder_cpu_chunks, (unsigned long long)s.decoder_returned_chunks, s.decoder_rule.c_str(),
      (unsigned long long)s.batches, (unsigned long long)s.bytes_read,
      (unsigned long long)s.bytes_decoded, s.seconds_total, s.seconds_io, s.seconds_read_threads,
      s.seconds_cpu_decode_threads, s.seconds_h2d, s.seconds_gpu_decode, s.seconds_place, s.io_path.c_str(),
      s.io_detail.c_str());
}

// --mode steps: every read's own breakdown, medians over all reads.
int run_steps(const Array& a, const Options& o, std::uint64_t step_bytes, double prepare_seconds) {
  const auto t_dim = static_cast<std::int64_t>(a.shape()[0]);
  const int n = static_cast<int>(std::min<std::int64_t>(o.steps, t_dim));
  const std::uint64_t bytes = step_bytes * static_cast<std::uint64_t>(n);
  gpu::DeviceBuffer out(bytes);
  std::mt19937_64 rng(o.seed);
  std::vector<std::int64_t> all(static_cast<std::size_t>(t_dim));
  for (std::int64_t t = 0; t < t_dim; ++t) all[static_cast<std::size_t>(t)] = t;
  std::vector<double> gbps, total, io, h2d, decode, place, batches;
  for (int r = 0; r < o.repeat * o.pairs; ++r) {
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<std::int64_t> pick(all.begin(), all.begin() + n);
    std::sort(pick.begin(), pick.end());
    const auto t0 = Clock::now();
    a.read(Selection({DimSelection::positions(pick)}), out.data(), bytes, Device::cuda(0));
    ZARRGPU_CUDA_CHECK(cudaDeviceSynchronize());
    const double seconds = since(t0);
    if (r == 0) continue;  // the first read sizes the device buffers
    const engine::DeviceReadStats s = engine::last_device_read_stats();
    gbps.push_back(bytes / seconds / 1e9);
    total.push_back(s.seconds_total * 1e3);
    io.push_back(s.seconds_io * 1e3);
    h2d.push_back(s.seconds_h2d * 1e3);
    decode.push_back(s.seconds_gpu_decode * 1e3);
    place.push_back(s.seconds_place * 1e3);
    batches.push_back(static_cast<double>(s.batches));
  }
  std::printf("{\"mode\": \"steps\", \"steps\": %d, \"bytes\": %llu, \"reads\": %zu, \"zarrgpu_gbps\": %.4f, "
              "\"median_ms\": {\"total\": %.3f, \"io\": %.3f, \"h2d\": %.3f, \"gpu_decode\": %.3f, \"place\": %.3f}, "
              "\"batches\": %.0f, \"seconds_prepare\": %.4f, ",
              n, (unsigned long long)bytes, gbps.size(), median(gbps), median(total), median(io), median(h2d),
              median(decode), median(place), median(batches), prepare_seconds);
  print_stats(engine::last_device_read_stats());
  std::printf("}\n");
  return 0;
}

int run_reads(const Options& o) {
  const Array a = Array::open(open_store(o.store), o.array);
  const auto tp = Clock::now();
  engine::prepare_device_read(Device::cuda(0));
  const double prepare_seconds = since(tp);
  const auto shape = a.shape();
  const std::size_t es = size_of(a.dtype());
  std::uint64_t step_elems = 1;
  for (std::size_t d = 1; d < shape.size(); ++d) step_elems *= shape[d];
  std::vector<double> gbps;
  std::uint64_t bytes = 0;
  int pairs_done = 0;
  if (o.mode == "full") {
    bytes = a.metadata().num_elements() * es;
    gpu::DeviceBuffer out(bytes);
    for (int r = 0; r < o.repeat; ++r) {
      const auto t0 = Clock::now();
      a.read(Selection(), out.data(), bytes, Device::cuda(0));
      ZARRGPU_CUDA_CHECK(cudaDeviceSynchronize());
      gbps.push_back(bytes / since(t0) / 1e9);
    }
  } else if (o.mode == "steps") {
    return run_steps(a, o, step_elems * es, prepare_seconds);
  } else {
    const std::uint64_t pair_bytes = 2 * step_elems * es;
    gpu::DeviceBuffer out(pair_bytes);
    std::mt19937_64 rng(o.seed);
    for (int r = 0; r < o.repeat; ++r) {
      const auto t0 = Clock::now();
      int p = 0;
      while (p < o.pairs && (o.max_seconds <= 0 || since(t0) < o.max_seconds)) {
        const auto t = static_cast<std::int64_t>(rng() % (shape[0] - 1));
        a.read(Selection({DimSelection::slice(t, t + 2)}), out.data(), pair_bytes, Device::cuda(0));
        ++p;
      }
      ZARRGPU_CUDA_CHECK(cudaDeviceSynchronize());
      gbps.push_back(static_cast<double>(pair_bytes) * p / since(t0) / 1e9);
      pairs_done = p;
    }
    bytes = pair_bytes * static_cast<std::uint64_t>(pairs_done);
  }
  std::printf("{\"mode\": \"%s\", \"bytes\": %llu, \"repeat\": %d, \"zarrgpu_gbps\": %.4f, \"all_gbps\": [", o.mode.c_str(),
              (unsigned long long)bytes, o.repeat, median(gbps));
  for (std::size_t i = 0; i < gbps.size(); ++i) std::printf("%s%.4f", i ? ", " : "", gbps[i]);
  std::printf("], \"pairs_done\": %d, \"seconds_prepare\": %.4f, ", pairs_done, prepare_seconds);
  print_stats(engine::last_device_read_stats());
  std::printf("}\n");
  return 0;
}

int run_limits(const Options& o) {
  // pinned host -> device
  const std::size_t n = std::size_t{1} << 30;
  gpu::PinnedBuffer host(n);
  std::memset(host.data(), 1, n);
  gpu::DeviceBuffer dev(n);
  ZARRGPU_CUDA_CHECK(cudaMemcpy(dev.data(), host.data(), n, cudaMemcpyHostToDevice));
  auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i) ZARRGPU_CUDA_CHECK(cudaMemcpy(dev.data(), host.data(), n, cudaMemcpyHostToDevice));
  const double h2d = 3.0 * n / since(t0) / 1e9;

  // the chunk files
  std::vector<fs::path> files;
  std::uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(o.store) / o.array)) {
    if (e.is_regular_file() && e.path().filename() != "zarr.json" && e.path().filename().string()[0] != '.') {
      files.push_back(e.path());
      total += e.file_size();
    }
  }
  std::vector<std::vector<char>> contents(files.size());
  std::atomic<std::size_t> next{0};
  auto pread_all = [&] {
    for (std::size_t i; (i = next++) < files.size();) {
      const int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      contents[i].resize(fs::file_size(files[i]));
      std::size_t done = 0;
      while (done < contents[i].size()) {
        const ssize_t r = ::pread(fd, contents[i].data() + done, contents[i].size() - done, static_cast<off_t>(done));
        if (r <= 0) break;
        done += static_cast<std::size_t>(r);
      }
      ::close(fd);
    }
  };
  t0 = Clock::now();
  {
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < o.threads; ++t) ts.emplace_back(pread_all);
    for (auto& t : ts) t.join();
  }
  const double pread_gbps = total / since(t0) / 1e9;

  // libzstd on all cores (zstd chunks only)
  std::atomic<std::uint64_t> decoded{0};
  std::atomic<bool> is_zstd{true};
  next = 0;
  auto decode_all = [&] {
    ZSTD_DCtx* ctx = ZSTD_createDCtx();
    std::vector<char> out;
    for (std::size_t i; (i = next++) < files.size();) {
      const auto size = ZSTD_getFrameContentSize(contents[i].data(), contents[i].size());
      if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) { is_zstd = false; continue; }
      out.resize(size);
      const std::size_t r = ZSTD_decompressDCtx(ctx, out.data(), out.size(), contents[i].data(), contents[i].size());
      if (!ZSTD_isError(r)) decoded += r;
    }
    ZSTD_freeDCtx(ctx);
  };
  t0 = Clock::now();
  {
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < std::thread::hardware_concurrency(); ++t) ts.emplace_back(decode_all);
    for (auto& t : ts) t.join();
  }
  const double zstd_gbps = decoded.load() / since(t0) / 1e9;
  std::printf("{\"pinned_h2d_gbps\": %.3f, \"pread_page_cache_gbps\": %.3f, \"pread_threads\": %u, \"stored_bytes\": %llu, "
              "\"libzstd_all_cores_gbps\": %.3f, \"libzstd_threads\": %u, \"zstd\": %s}\n",
              h2d, pread_gbps, o.threads, (unsigned long long)total, is_zstd ? zstd_gbps : 0.0,
              std::thread::hardware_concurrency(), is_zstd ? "true" : "false");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    return o.limits ? run_limits(o) : run_reads(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_read: %s\n", e.what());
    return 1;
  }
}
