// zstd_gpu_bench: decoded GB/s of Zstandard decoders on ERA5-like float32
// chunks (smooth fields plus noise), per chunk size and compression level:
//   zarrgpu   our batched GPU decoder (one decompress_async per batch)
//   nvcomp    nVIDIA nvCOMP's nvcompBatchedZstdDecompressAsync (if built with it)
//   libzstd   ZSTD_decompressDCtx on all CPU cores (std::thread pool)
// GPU times are CUDA events around the decode call only (data already on the
// device); CPU times are wall clock. Median of --runs. Every decoder's output
// is checked against the original once.
//
//   zstd_gpu_bench [--gib 2] [--gib-l19 2] [--chunk-kib 64,256,1024,4096]
//                  [--levels 1,3,9,19] [--runs 5] [--threads N] [--out DIR]
//                  [--no-cpu] [--no-nvcomp] [--cache DIR]
// --cache DIR keeps each row's compressed chunks in DIR and reuses them
// (level 19 compresses at a few MB/s a core: A/B scripts run the same rows
// many times; bench/zstd_gpu/ab_many.sh).
#include <cuda_runtime.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_data.hpp"
#include "codec/bytes_to_bytes/zstd/gpu/zstd_gpu.hpp"
#if defined(ZARRGPU_HAVE_NVCOMP)
#include <nvcomp/zstd.h>
#endif

namespace {

namespace zg = zarrgpu::zstd::gpu;
using zarrgpu::bench::make_era5_like;
using zarrgpu::bench::parallel_for;
using Clock = std::chrono::steady_clock;

#define CUDA_CHECK(x)                                                                      \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(3);                                                                        \
    }                                                                                      \
  } while (0)

struct Args {
  double gib = 2.0;
  // Level 19 at the 2 GiB too: at 0.25 GiB (4,096 chunks of 64 KiB)
  // nvCOMP decoded 38 GB/s, at 2 GiB 69 GB/s (H200, 2026-11-23): a smaller
  // batch starves its decoder, and the comparison flattered ours.
  double gib_l19 = 2.0;
  std::vector<size_t> chunk_kib = {64, 256, 1024, 4096};
  std::vector<int> levels = {1, 3, 9, 19};
  int runs = 5;
  unsigned threads = 0;
  std::string out = "bench/results";
  bool cpu = true;
  bool nvcomp = true;
  std::string cache;  // --cache: directory of compressed rows, "" for none
  std::string command;
};

std::vector<size_t> parse_list(const std::string& s) {
  std::vector<size_t> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::stoul(item));
  return v;
}

struct Batch {
  std::vector<size_t> in_off, in_size, out_off, out_size;
  std::vector<uint8_t> compressed;  // chunks, each at an aligned offset
  size_t decoded = 0;
};

// A batch of n chunks of `chunk` bytes (the last one shorter) out of
// `bytes`, compressed to `sizes`: each chunk's place in `compressed`,
// aligned for every decoder, and in the output.
Batch lay_out(const std::vector<size_t>& sizes, size_t bytes, size_t chunk) {
  Batch b;
  size_t pos = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    b.in_off.push_back(pos);
    b.in_size.push_back(sizes[i]);
    pos += (sizes[i] + 255) / 256 * 256;
    b.out_off.push_back(i * chunk);
    b.out_size.push_back(std::min(chunk, bytes - i * chunk));
  }
  b.compressed.resize(pos);
  b.decoded = bytes;
  return b;
}

Batch compress_chunks(const std::vector<uint8_t>& data, size_t bytes, size_t chunk, int level, unsigned threads) {
  const size_t n = (bytes + chunk - 1) / chunk;
  std::vector<std::vector<uint8_t>> parts(n);
  parallel_for(n, threads, [&](size_t i) {
    const size_t off = i * chunk, len = std::min(chunk, bytes - off);
    std::vector<uint8_t> c(ZSTD_compressBound(len));
    thread_local ZSTD_CCtx* cctx = ZSTD_createCCtx();
    const size_t r = ZSTD_compressCCtx(cctx, c.data(), c.size(), data.data() + off, len, level);
    if (ZSTD_isError(r)) std::abort();
    c.resize(r);
    parts[i] = std::move(c);
  });
  std::vector<size_t> sizes(n);
  for (size_t i = 0; i < n; ++i) sizes[i] = parts[i].size();
  Batch b = lay_out(sizes, bytes, chunk);
  for (size_t i = 0; i < n; ++i) std::memcpy(b.compressed.data() + b.in_off[i], parts[i].data(), parts[i].size());
  return b;
}

// The row's chunks from `dir` (made if missing) when an earlier run left
// them there, else compressed and left there (the data is the same on
// every run: a seeded generator). A file holds the chunk count, the chunk
// sizes, then the chunks as lay_out() places them.
Batch cached_chunks(const std::string& dir, const std::vector<uint8_t>& data, size_t bytes, size_t chunk, int level,
                    unsigned threads) {
  if (dir.empty()) return compress_chunks(data, bytes, chunk, level, threads);
  std::filesystem::create_directories(dir);
  const std::string path =
      dir + "/l" + std::to_string(level) + "_c" + std::to_string(chunk) + "_b" + std::to_string(bytes) + ".bin";
  if (std::ifstream f{path, std::ios::binary}) {
    uint64_t n = 0;
    f.read(reinterpret_cast<char*>(&n), sizeof n);
    if (f && n == (bytes + chunk - 1) / chunk) {
      std::vector<uint64_t> stored(n);
      f.read(reinterpret_cast<char*>(stored.data()), static_cast<std::streamsize>(n * sizeof(uint64_t)));
      Batch b = lay_out(std::vector<size_t>(stored.begin(), stored.end()), bytes, chunk);
      f.read(reinterpret_cast<char*>(b.compressed.data()), static_cast<std::streamsize>(b.compressed.size()));
      if (f) return b;
    }
    std::fprintf(stderr, "%s is unreadable: compressing again\n", path.c_str());
  }
  Batch b = compress_chunks(data, bytes, chunk, level, threads);
  const std::string tmp = path + ".tmp";
  std::ofstream f{tmp, std::ios::binary};
  const uint64_t n = b.in_size.size();
  const std::vector<uint64_t> sizes(b.in_size.begin(), b.in_size.end());
  f.write(reinterpret_cast<const char*>(&n), sizeof n);
  f.write(reinterpret_cast<const char*>(sizes.data()), static_cast<std::streamsize>(n * sizeof(uint64_t)));
  f.write(reinterpret_cast<const char*>(b.compressed.data()), static_cast<std::streamsize>(b.compressed.size()));
  f.close();
  if (f) std::rename(tmp.c_str(), path.c_str());  // whole files only
  else std::remove(tmp.c_str());
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double cpu_decode_gbps(const Batch& b, std::vector<uint8_t>& out, unsigned threads, int runs) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    parallel_for(b.in_off.size(), threads, [&](size_t i) {
      thread_local ZSTD_DCtx* d = ZSTD_createDCtx();
      ZSTD_decompressDCtx(d, out.data() + b.out_off[i], b.out_size[i], b.compressed.data() + b.in_off[i], b.in_size[i]);
    });
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return b.decoded / median(t) / 1e9;
}

struct DeviceBatch {
  uint8_t *in = nullptr, *out = nullptr;
  void **in_ptrs = nullptr, **out_ptrs = nullptr;
  size_t *in_sizes = nullptr, *out_caps = nullptr, *out_sizes = nullptr;
  size_t n = 0, decoded = 0;
  explicit DeviceBatch(const Batch& b) : n(b.in_off.size()), decoded(b.decoded) {
    CUDA_CHECK(cudaMalloc(&in, b.compressed.size() + 1));
    CUDA_CHECK(cudaMalloc(&out, b.decoded + 1));
    CUDA_CHECK(cudaMemcpy(in, b.compressed.data(), b.compressed.size(), cudaMemcpyHostToDevice));
    std::vector<void*> ip(n), op(n);
    for (size_t i = 0; i < n; ++i) {
      ip[i] = in + b.in_off[i];
      op[i] = out + b.out_off[i];
    }
    CUDA_CHECK(cudaMalloc(&in_ptrs, n * sizeof(void*)));
    CUDA_CHECK(cudaMalloc(&out_ptrs, n * sizeof(void*)));
    CUDA_CHECK(cudaMalloc(&in_sizes, n * sizeof(size_t)));
    CUDA_CHECK(cudaMalloc(&out_caps, n * sizeof(size_t)));
    CUDA_CHECK(cudaMalloc(&out_sizes, n * sizeof(size_t)));
    CUDA_CHECK(cudaMemcpy(in_ptrs, ip.data(), n * sizeof(void*), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(out_ptrs, op.data(), n * sizeof(void*), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(in_sizes, b.in_size.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(out_caps, b.out_size.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
  }
  ~DeviceBatch() {
    for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(in_ptrs),
                    static_cast<void*>(out_ptrs), static_cast<void*>(in_sizes), static_cast<void*>(out_caps),
                    static_cast<void*>(out_sizes)}) {
      cudaFree(p);
    }
  }
  bool output_equals(const std::vector<uint8_t>& data) const {
    std::vector<uint8_t> h(decoded);
    CUDA_CHECK(cudaMemcpy(h.data(), out, decoded, cudaMemcpyDeviceToHost));
    return std::memcmp(h.data(), data.data(), decoded) == 0;
  }
};

// Times `launch` with CUDA events: one warm-up, then `runs` timed calls.
double time_gpu(const std::function<void(cudaStream_t)>& launch, cudaStream_t s, size_t bytes, int runs) {
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  launch(s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    CUDA_CHECK(cudaEventRecord(e0, s));
    launch(s);
    CUDA_CHECK(cudaEventRecord(e1, s));
    CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms / 1e3);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return bytes / median(t) / 1e9;
}

double gib(size_t bytes) { return double(bytes) / double(1ull << 30); }

struct Row {
  int level;
  size_t chunk_kib, chunks, decoded, compressed;
  double ours = 0, nvcomp = -1, cpu = -1, ours_bp = -1, one_warp = 0;
  bool ours_ok = false, nvcomp_ok = false, ours_bp_ok = false, one_warp_ok = false;
  bool auto_block_parallel = false;  // the path Strategy::automatic takes (the `ours` figure)
  // Scratch each decoder asked for (get_decompress_temp_size with the
  // automatic strategy; nvcompBatchedZstdDecompressGetTempSize), bytes.
  size_t ours_temp = 0, nvcomp_temp = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 0; i < argc; ++i) a.command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto v = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (k == "--gib") a.gib = std::stod(v());
    else if (k == "--gib-l19") a.gib_l19 = std::stod(v());
    else if (k == "--chunk-kib") a.chunk_kib = parse_list(v());
    else if (k == "--levels") { a.levels.clear(); for (auto x : parse_list(v())) a.levels.push_back(static_cast<int>(x)); }
    else if (k == "--runs") a.runs = std::stoi(v());
    else if (k == "--threads") a.threads = static_cast<unsigned>(std::stoul(v()));
    else if (k == "--out") a.out = v();
    else if (k == "--no-cpu") a.cpu = false;
    else if (k == "--no-nvcomp") a.nvcomp = false;
    else if (k == "--cache") a.cache = v();
    else { std::fprintf(stderr, "unknown argument %s\n", k.c_str()); return 2; }
  }
  if (!a.threads) a.threads = std::max(1u, std::thread::hardware_concurrency());
  if (!zg::device_available()) {
    std::fprintf(stderr, "no CUDA device\n");
    return 2;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  bool have_nvcomp = false;
#if defined(ZARRGPU_HAVE_NVCOMP)
  have_nvcomp = a.nvcomp;
#endif
  std::printf("device: %s (%d SMs), %u CPU threads, %s\n", prop.name, prop.multiProcessorCount, a.threads, date);
  // Both paths are timed on every batch; the zarrgpu column is the path
  // Strategy::automatic picks for the batch.
  unsetenv("ZARRGPU_ZSTD_BLOCK_PARALLEL");  // the zarrgpu column follows the automatic rule itself

  const size_t max_bytes = static_cast<size_t>(a.gib * (1ull << 30)) / 4 * 4;
  const auto t_gen = Clock::now();
  const std::vector<uint8_t> data = make_era5_like(max_bytes, a.threads);
  std::printf("generated %.2f GiB ERA5-like float32 in %.1f s\n", max_bytes / double(1ull << 30),
              std::chrono::duration<double>(Clock::now() - t_gen).count());
  std::vector<uint8_t> cpu_out(a.cpu ? max_bytes : 0);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  std::vector<Row> rows;

  for (int level : a.levels) {
    // Level 19 compresses at a few MB/s per core: --gib-l19 can make its input smaller.
    const size_t bytes = level >= 19 ? std::min(max_bytes, static_cast<size_t>(a.gib_l19 * (1ull << 30)) / 4 * 4)
                                     : max_bytes;
    for (size_t kib : a.chunk_kib) {
      const auto t0 = Clock::now();
      const Batch b = cached_chunks(a.cache, data, bytes, kib * 1024, level, a.threads);
      const double t_comp = std::chrono::duration<double>(Clock::now() - t0).count();
      Row row{level, kib, b.in_off.size(), b.decoded, 0};
      for (size_t s : b.in_size) row.compressed += s;
      DeviceBatch d(b);
      // One call per path: the one-warp decoder (max_uncompressed_chunk_bytes
      // left 0 keeps it even under ZARRGPU_ZSTD_BLOCK_PARALLEL=1) and, when
      // asked, the block-parallel one, side by side on the same batch.
      auto measure = [&](zg::Strategy strategy, bool* ok) {
        zg::DecompressOptions opts;
        opts.strategy = strategy;
        opts.max_uncompressed_chunk_bytes = kib * 1024;
        size_t temp = 0;
        zg::get_decompress_temp_size(d.n, kib * 1024, opts, &temp);
        void* d_temp = nullptr;
        CUDA_CHECK(cudaMalloc(&d_temp, temp + 1));
        zg::Status* d_status = nullptr;
        CUDA_CHECK(cudaMalloc(&d_status, d.n * sizeof(zg::Status)));
        CUDA_CHECK(cudaMemset(d.out, 0, d.decoded));
        const double gbps = time_gpu(
            [&](cudaStream_t s) {
              if (zg::decompress_async(reinterpret_cast<const void* const*>(d.in_ptrs), d.in_sizes, d.out_ptrs,
                                       d.out_caps, d.out_sizes, d_status, d.n, d_temp, temp, opts, s) != zg::kSuccess) {
                std::fprintf(stderr, "decompress_async failed\n");
                std::exit(3);
              }
            },
            stream, d.decoded, a.runs);
        std::vector<zg::Status> st(d.n);
        CUDA_CHECK(cudaMemcpy(st.data(), d_status, d.n * sizeof(zg::Status), cudaMemcpyDeviceToHost));
        *ok = std::all_of(st.begin(), st.end(), [](zg::Status x) { return x == zg::Status::ok; }) &&
              d.output_equals(data);
        cudaFree(d_temp);
        cudaFree(d_status);
        return gbps;
      };
      row.one_warp = measure(zg::Strategy::one_warp, &row.one_warp_ok);
      // Forced, block parallel takes one-block chunks too: measured at every size.
      row.ours_bp = measure(zg::Strategy::block_parallel, &row.ours_bp_ok);
      {
        zg::DecompressOptions automatic;
        automatic.max_uncompressed_chunk_bytes = kib * 1024;
        row.auto_block_parallel = zg::use_block_parallel(d.n, automatic) && row.ours_bp >= 0;
        zg::get_decompress_temp_size(d.n, kib * 1024, automatic, &row.ours_temp);
        row.ours = row.auto_block_parallel ? row.ours_bp : row.one_warp;
        row.ours_ok = row.auto_block_parallel ? row.ours_bp_ok : row.one_warp_ok;
      }
#if defined(ZARRGPU_HAVE_NVCOMP)
      if (have_nvcomp) {
        CUDA_CHECK(cudaMemset(d.out, 0, d.decoded));
        const nvcompBatchedZstdDecompressOpts_t opts = nvcompBatchedZstdDecompressDefaultOpts;
        size_t ntemp = 0;
        if (nvcompBatchedZstdDecompressGetTempSize(d.n, kib * 1024, opts, &ntemp, d.decoded, stream) ==
            nvcompSuccess) {
          row.nvcomp_temp = ntemp;
          void* nv_temp = nullptr;
          nvcompStatus_t* nv_status = nullptr;
          CUDA_CHECK(cudaMalloc(&nv_temp, ntemp + 1));
          CUDA_CHECK(cudaMalloc(&nv_status, d.n * sizeof(nvcompStatus_t)));
          row.nvcomp = time_gpu(
              [&](cudaStream_t s) {
                nvcompBatchedZstdDecompressAsync(reinterpret_cast<const void* const*>(d.in_ptrs), d.in_sizes,
                                                 d.out_caps, d.out_sizes, d.n, nv_temp, ntemp, d.out_ptrs, opts,
                                                 nv_status, s);
              },
              stream, d.decoded, a.runs);
          std::vector<nvcompStatus_t> ns(d.n);
          CUDA_CHECK(cudaMemcpy(ns.data(), nv_status, d.n * sizeof(nvcompStatus_t), cudaMemcpyDeviceToHost));
          row.nvcomp_ok = std::all_of(ns.begin(), ns.end(), [](nvcompStatus_t x) { return x == nvcompSuccess; }) &&
                          d.output_equals(data);
          cudaFree(nv_temp);
          cudaFree(nv_status);
        }
      }
#endif
      if (a.cpu) row.cpu = cpu_decode_gbps(b, cpu_out, a.threads, std::max(1, a.runs / 2));
      std::printf("level %3d  chunk %5zu KiB  %7zu chunks  ratio %5.3f  zarrgpu %7.2f GB/s (%s)%s  nvcomp %7.2f GB/s%s  "
                  "libzstd(%u thr) %6.2f GB/s  one-warp %7.2f%s  block-parallel %7.2f%s  temp %.2f / %.2f GiB  "
                  "(compress %.1f s)\n",
                  level, kib, row.chunks, double(row.decoded) / row.compressed, row.ours,
                  row.auto_block_parallel ? "block-parallel" : "one warp", row.ours_ok ? "" : " WRONG", row.nvcomp,
                  have_nvcomp && !row.nvcomp_ok ? " WRONG" : "", a.threads, row.cpu, row.one_warp,
                  row.one_warp_ok ? "" : " WRONG", row.ours_bp, row.ours_bp >= 0 && !row.ours_bp_ok ? " WRONG" : "",
                  gib(row.ours_temp), gib(row.nvcomp_temp), t_comp);
      std::fflush(stdout);
      rows.push_back(row);
    }
  }

  // Results: CSV, markdown, JSON, each with device, date and command.
  std::string cmd_escaped;
  for (char c : a.command) cmd_escaped += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  std::ofstream csv(a.out + "/zstd_gpu.csv"), md(a.out + "/zstd_gpu.md"), js(a.out + "/zstd_gpu.json");
  csv << "# device=" << prop.name << ",date=" << date << ",command=" << a.command << "\n";
  csv << "level,chunk_kib,chunks,decoded_bytes,compressed_bytes,ratio,zarrgpu_gbps,nvcomp_gbps,libzstd_cpu_gbps,"
         "zarrgpu_verified,nvcomp_verified,zarrgpu_block_parallel_gbps,zarrgpu_block_parallel_verified,"
         "zarrgpu_one_warp_gbps,zarrgpu_one_warp_verified,zarrgpu_path,zarrgpu_temp_bytes,nvcomp_temp_bytes\n";
  md << "# zarrgpu batched Zstandard decode, GB/s of decoded data\n\n"
     << "- device: " << prop.name << " (" << prop.multiProcessorCount << " SMs); CPU threads: " << a.threads << "\n"
     << "- date: " << date << "\n- command: `" << a.command << "`\n"
     << "- data: ERA5-like float32 (smooth fields plus noise), " << a.gib << " GiB per row; level 19 rows: "
     << a.gib_l19 << " GiB\n"
     << "- GPU: CUDA events around the decode call, median of " << a.runs << " runs, data resident on the GPU\n"
     << "- zarrgpu GPU: the path the decoder's automatic strategy takes for the batch (bp: block-parallel, 1w: one "
        "warp per chunk); both paths are timed where chunks span several blocks\n"
     << "- temp: the scratch each GPU decoder asks for this batch, GiB (zarrgpu / nvCOMP)\n\n"
     << "| level | chunk | chunks | ratio | zarrgpu GPU | nvCOMP GPU | libzstd CPU | zarrgpu / nvCOMP |"
     << " one warp | block-parallel | temp GiB |\n"
     << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  js << "{\n  \"device\": \"" << prop.name << "\",\n  \"date\": \"" << date << "\",\n  \"command\": \"" << cmd_escaped
     << "\",\n  \"cpu_threads\": " << a.threads << ",\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double ratio = double(r.decoded) / r.compressed;
    csv << r.level << "," << r.chunk_kib << "," << r.chunks << "," << r.decoded << "," << r.compressed << "," << ratio
        << "," << r.ours << "," << r.nvcomp << "," << r.cpu << "," << r.ours_ok << "," << r.nvcomp_ok << "," << r.ours_bp << "," << r.ours_bp_ok
        << "," << r.one_warp << "," << r.one_warp_ok << "," << (r.auto_block_parallel ? "block_parallel" : "one_warp") << ","
        << r.ours_temp << "," << r.nvcomp_temp << "\n";
    char line[512];
    std::snprintf(line, sizeof line, "| %d | %zu KiB | %zu | %.3f | %.2f %s%s | %s | %s | %s |", r.level, r.chunk_kib,
                  r.chunks, ratio, r.ours, r.auto_block_parallel ? "bp" : "1w", r.ours_ok ? "" : " (WRONG)",
                  r.nvcomp >= 0 ? (std::to_string(r.nvcomp).substr(0, 6) + (r.nvcomp_ok ? "" : " (WRONG)")).c_str() : "n/a",
                  r.cpu >= 0 ? std::to_string(r.cpu).substr(0, 6).c_str() : "n/a",
                  r.nvcomp > 0 ? std::to_string(r.ours / r.nvcomp).substr(0, 5).c_str() : "n/a");
    std::string md_line = line;
    char more[160];
    std::snprintf(more, sizeof more, " %.2f%s | %s%s | %.2f / %.2f |\n", r.one_warp, r.one_warp_ok ? "" : " (WRONG)",
                  r.ours_bp >= 0 ? std::to_string(r.ours_bp).substr(0, 6).c_str() : "n/a",
                  r.ours_bp >= 0 && !r.ours_bp_ok ? " (WRONG)" : "", gib(r.ours_temp), gib(r.nvcomp_temp));
    md_line += more;
    md << md_line;
    js << "    {\"level\": " << r.level << ", \"chunk_kib\": " << r.chunk_kib << ", \"chunks\": " << r.chunks
       << ", \"decoded_bytes\": " << r.decoded << ", \"compressed_bytes\": " << r.compressed
       << ", \"zarrgpu_gbps\": " << r.ours << ", \"nvcomp_gbps\": " << r.nvcomp << ", \"libzstd_cpu_gbps\": " << r.cpu
       << ", \"zarrgpu_verified\": " << (r.ours_ok ? "true" : "false")
       << ", \"nvcomp_verified\": " << (r.nvcomp_ok ? "true" : "false") << ", \"zarrgpu_temp_bytes\": " << r.ours_temp
       << ", \"nvcomp_temp_bytes\": " << r.nvcomp_temp << "}" << (i + 1 < rows.size() ? "," : "")
       << "\n";
  }
  js << "  ]\n}\n";
  const bool all_ok = std::all_of(rows.begin(), rows.end(), [](const Row& r) {
    return r.ours_ok && r.one_warp_ok && (r.ours_bp < 0 || r.ours_bp_ok);
  });
  std::printf("results in %s/zstd_gpu.{csv,md,json}%s\n", a.out.c_str(), all_ok ? "" : "; zarrgpu output WRONG somewhere");
  return all_ok ? 0 : 1;
}
