// Full-array reads into host memory, and the ceiling they are measured against:
// libzstd decoding the same chunks on all cores with no I/O.
//
//   bench_cpu_read STORE [--threads N] [--repeat R] [--ceiling] [--cold] [--json]
//
// Reads every array of rank >= 3 under the group STORE (the ERA5-like
// variables), R times, and prints the median decoded GB/s. With --ceiling it
// also loads every chunk of those arrays into memory and decodes them with
// ZSTD_decompressDCtx on N threads (zstd-compressed arrays, and sharded arrays
// whose inner chunks are zstd-compressed). With --cold every timed read starts
// from a cold page cache: /proc/sys/vm/drop_caches where that may be written
// (root), else POSIX_FADV_DONTNEED on every file under STORE (which leaves the
// directory entries and inodes cached); the output says which.
//
// The read-ahead setting (ZARRGPU_READAHEAD) is reported with the figures.
#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "store/readahead_window.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"

using namespace zarrgpu;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Options {
  std::string store;
  unsigned threads = std::thread::hardware_concurrency();
  int repeat = 5;
  bool ceiling = false;
  bool cold = false;
  bool json = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "missing value for %s\n", a.c_str()); std::exit(1); }
      return argv[++i];
    };
    if (a == "--threads") o.threads = std::stoul(next());
    else if (a == "--repeat") o.repeat = std::stoi(next());
    else if (a == "--ceiling") o.ceiling = true;
    else if (a == "--cold") o.cold = true;
    else if (a == "--json") o.json = true;
    else if (o.store.empty()) o.store = a;
    else { std::fprintf(stderr, "unexpected argument %s\n", a.c_str()); std::exit(1); }
  }
  if (o.store.empty()) {
    std::fprintf(stderr, "usage: bench_cpu_read STORE [--threads N] [--repeat R] [--ceiling] [--cold] [--json]\n");
    std::exit(1);
  }
  return o;
}

// Empties the page cache of STORE's files; returns how ("drop_caches" or
// "fadvise_dontneed").
const char* make_cold(const std::string& root) {
  ::sync();
  {
    std::ofstream f("/proc/sys/vm/drop_caches");
    if (f && (f << "3\n") && f.flush()) return "drop_caches";
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
  return "fadvise_dontneed";
}

// libzstd on `threads` threads over chunks already in memory: the decode ceiling.
double zstd_ceiling_gbps(const std::vector<Bytes>& chunks, std::size_t decoded_chunk_bytes,
                         unsigned threads, int repeat) {
  std::vector<double> rates;
  std::vector<Bytes> outs(threads);
  for (auto& o : outs) o.resize(decoded_chunk_bytes);
  for (int r = 0; r < repeat; ++r) {
    std::atomic<std::size_t> next{0}, decoded{0};
    auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        ZSTD_DCtx* dctx = ZSTD_createDCtx();
        std::size_t mine = 0;
        for (std::size_t i; (i = next.fetch_add(1)) < chunks.size();) {
          std::size_t n = ZSTD_decompressDCtx(dctx, outs[t].data(), outs[t].size(), chunks[i].data(),
                                              chunks[i].size());
          if (ZSTD_isError(n)) { std::fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(n)); std::exit(2); }
          mine += n;
        }
        ZSTD_freeDCtx(dctx);
        decoded += mine;
      });
    for (auto& th : pool) th.join();
    rates.push_back(decoded.load() / seconds_since(t0) / 1e9);
  }
  return median(rates);
}

}  // namespace

int main(int argc, char** argv) try {
  Options opt = parse(argc, argv);
  auto store = open_store(opt.store);
  Group group = Group::open(store, "");

  std::vector<std::string> names;
  for (const auto& [path, node] : group.tree())
    if (const auto* a = std::get_if<ArrayMetadata>(&node); a && a->ndim() >= 3) names.push_back(path);
  if (names.empty()) throw Error(ErrorKind::not_found, "no array of rank >= 3 in the group", {.store = opt.store});

  std::vector<Array> arrays;
  std::size_t total_bytes = 0;
  for (const auto& n : names) {
    arrays.push_back(group.open_array(n));
    total_bytes += arrays.back().metadata().num_elements() * size_of(arrays.back().dtype());
  }

  ReadOptions ro;
  ro.threads = opt.threads;
  std::vector<Bytes> outs;
  for (const auto& a : arrays) outs.emplace_back(a.metadata().num_elements() * size_of(a.dtype()));

  std::vector<double> rates;
  const char* cold_method = "none";
  for (int r = 0; r < opt.repeat; ++r) {
    if (opt.cold) cold_method = make_cold(opt.store);
    auto t0 = Clock::now();
    for (std::size_t i = 0; i < arrays.size(); ++i) arrays[i].read(Selection{}, outs[i].span(), ro);
    rates.push_back(total_bytes / seconds_since(t0) / 1e9);
  }
  double zarrgpu_gbps = median(rates);

  double ceiling = 0;
  if (opt.ceiling) {
    // Every stored zstd chunk of the arrays, in memory (no I/O in the timed
    // loop): whole chunks, or the inner chunks of shards whose index (at the
    // end, bytes + crc32c) lists where they lie.
    std::vector<Bytes> chunks;
    std::size_t decoded_chunk_bytes = 0;
    for (const auto& a : arrays) {
      const auto& m = a.metadata();
      if (m.codecs.empty()) continue;
      std::vector<std::uint64_t> chunk_shape = m.chunk_shape;
      std::uint64_t inner_per_shard = 0;  // 0: not sharded
      const CodecSpec& last = m.codecs.back();
      if (last.name == "sharding_indexed") {
        const json& cfg = last.configuration;
        const json& inner = cfg.value("codecs", json::array());
        if (inner.empty() || inner.back().value("name", "") != "zstd" || cfg.value("index_location", "end") != "end")
          continue;
        chunk_shape = cfg["chunk_shape"].get<std::vector<std::uint64_t>>();
        inner_per_shard = 1;
        for (std::size_t d = 0; d < chunk_shape.size(); ++d) inner_per_shard *= m.chunk_shape[d] / chunk_shape[d];
      } else if (last.name != "zstd") {
        continue;
      }
      std::size_t chunk_bytes = size_of(m.data_type);
      for (auto c : chunk_shape) chunk_bytes *= c;
      decoded_chunk_bytes = std::max(decoded_chunk_bytes, chunk_bytes);
      std::string prefix = a.path().empty() ? "" : a.path() + "/";
      for (const auto& key : store->list(prefix)) {
        if (key.find("zarr.json") != std::string::npos || key.find(".z") != std::string::npos) continue;
        auto b = store->get(key);
        if (!b) continue;
        if (!inner_per_shard) { chunks.push_back(std::move(*b)); continue; }
        const std::size_t index_bytes = inner_per_shard * 16 + 4;
        if (b->size() < index_bytes) continue;
        const std::byte* index = b->data() + b->size() - index_bytes;
        for (std::uint64_t i = 0; i < inner_per_shard; ++i) {
          std::uint64_t off, len;
          std::memcpy(&off, index + 16 * i, 8);
          std::memcpy(&len, index + 16 * i + 8, 8);
          if (off == ~std::uint64_t{0} || off + len > b->size() - index_bytes) continue;
          chunks.push_back(Bytes(b->data() + off, len));
        }
      }
    }
    if (!chunks.empty()) ceiling = zstd_ceiling_gbps(chunks, decoded_chunk_bytes, opt.threads, opt.repeat);
  }

  const char* readahead_env = std::getenv("ZARRGPU_READAHEAD");
  const unsigned long long readahead = store::readahead_bytes();
  if (opt.json) {
    std::printf("{\"store\": \"%s\", \"arrays\": %zu, \"decoded_bytes\": %zu, \"threads\": %u, "
                "\"repeat\": %d, \"cold\": \"%s\", \"readahead_bytes\": %llu, \"readahead_env\": %s%s%s, "
                "\"zarrgpu_gbps\": %.3f, \"zstd_ceiling_gbps\": %.3f}\n",
                opt.store.c_str(), arrays.size(), total_bytes, opt.threads, opt.repeat, cold_method, readahead,
                readahead_env ? "\"" : "", readahead_env ? readahead_env : "null", readahead_env ? "\"" : "",
                zarrgpu_gbps, ceiling);
  } else {
    std::printf("%s: %zu arrays, %.2f GB decoded, %u threads, read-ahead %llu bytes%s, cold: %s\n",
                opt.store.c_str(), arrays.size(), total_bytes / 1e9, opt.threads, readahead,
                readahead_env ? "" : " (default)", cold_method);
    std::printf("  zarrgpu full read      %8.2f GB/s (median of %d)\n", zarrgpu_gbps, opt.repeat);
    if (opt.ceiling) std::printf("  libzstd ceiling        %8.2f GB/s\n", ceiling);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_cpu_read: %s\n", e.what());
  return 1;
}
