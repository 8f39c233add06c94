// The Zstandard GPU benchmarks' data: ERA5-like float32 fields, made on
// all CPU threads (zstd_gpu_bench.cpp).
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace zarrgpu::bench {

inline void parallel_for(size_t n, unsigned threads, const std::function<void(size_t)>& f) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) f(i);
    });
  }
  for (auto& th : pool) th.join();
}

// ERA5-like: a 721 x 1440 grid per field; temperature-like smooth structure
// (latitude profile, travelling waves) plus small Gaussian-ish noise.
inline std::vector<uint8_t> make_era5_like(size_t bytes, unsigned threads) {
  const size_t nlat = 721, nlon = 1440, field = nlat * nlon;
  const size_t n = bytes / 4;
  std::vector<uint8_t> out(n * 4);
  auto* f = reinterpret_cast<float*>(out.data());
  const size_t fields = (n + field - 1) / field;
  parallel_for(fields, threads, [&](size_t t) {
    uint64_t s = 0x9E3779B97F4A7C15ull * (t + 1);
    for (size_t i = 0; i < nlat && t * field + i * nlon < n; ++i) {
      const double lat = (static_cast<double>(i) / (nlat - 1) - 0.5) * M_PI;
      const double base = 250.0 + 40.0 * std::cos(lat);
      for (size_t j = 0; j < nlon; ++j) {
        const size_t k = t * field + i * nlon + j;
        if (k >= n) break;
        const double lon = static_cast<double>(j) / nlon * 2 * M_PI;
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const double noise = (static_cast<double>(s & 0xFFFF) / 65536.0 - 0.5) +
                             (static_cast<double>((s >> 16) & 0xFFFF) / 65536.0 - 0.5);
        f[k] = static_cast<float>(base + 8.0 * std::sin(3 * lon + 0.05 * t) * std::cos(2 * lat) + 0.3 * noise);
      }
    }
  });
  return out;
}

}  // namespace zarrgpu::bench
