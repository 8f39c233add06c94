#include "era5_field.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace zarrgpu::cli {

namespace {
constexpr int kModes = 6;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// Uniform in [0, 1) from a hash.
double unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

struct Mode {
  int n, m;          // meridional and zonal wave numbers
  double weight;     // relative amplitude
  double lat_phase, lon_phase;
  double speed;      // radians of longitude per time step
};

Mode mode_of(std::uint64_t seed, std::uint64_t c, int k) {
  std::uint64_t h = splitmix64(seed * 0x100000001B3ull ^ splitmix64(c * 131 + static_cast<std::uint64_t>(k)));
  Mode md;
  md.n = 1 + static_cast<int>(splitmix64(h + 1) % 5);
  md.m = static_cast<int>(splitmix64(h + 2) % 7);
  md.weight = (0.5 + unit(splitmix64(h + 3))) / (1.0 + k);
  md.lat_phase = 2 * std::numbers::pi * unit(splitmix64(h + 4));
  md.lon_phase = 2 * std::numbers::pi * unit(splitmix64(h + 5));
  md.speed = (unit(splitmix64(h + 6)) - 0.3) * 0.15;
  return md;
}
}  // namespace

ChannelInfo channel_info(std::uint64_t c) {
  static const ChannelInfo table[] = {
      {"t2m", "2 metre temperature", "K", 232, 68, 8, 0.4, 1.0 / 512, 180},
      {"u10", "10 metre U wind component", "m s**-1", -2, 4, 9, 0.6, 1.0 / 2048},
      {"v10", "10 metre V wind component", "m s**-1", 0, 0, 7, 0.6, 1.0 / 2048},
      {"msl", "Mean sea level pressure", "Pa", 99500, 1800, 1400, 25, 1.0 / 32},
      {"tcwv", "Total column vertically-integrated water vapour", "kg m**-2", 2, 45, 9, 0.8, 1.0 / 1024, 0},
      {"z500", "Geopotential at 500 hPa", "m**2 s**-2", 48500, 9000, 700, 12, 1.0 / 16},
      {"t850", "Temperature at 850 hPa", "K", 243, 47, 6, 0.3, 1.0 / 512, 180},
      {"sp", "Surface pressure", "Pa", 95000, 4000, 2500, 30, 1.0 / 32},
  };
  constexpr std::uint64_t n = sizeof(table) / sizeof(table[0]);
  ChannelInfo info = table[c % n];
  if (c >= n) info.name += "_" + std::to_string(c / n + 1);
  return info;
}

std::vector<double> era5_latitudes(std::uint64_t n) {
  std::vector<double> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = n == 1 ? 0.0 : 90.0 - 180.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  return v;
}

std::vector<double> era5_longitudes(std::uint64_t n) {
  std::vector<double> v(n);
  for (std::uint64_t j = 0; j < n; ++j) v[j] = 360.0 * static_cast<double>(j) / static_cast<double>(n);
  return v;
}

void synthesize_time_step(const Era5Shape& s, std::uint64_t t, std::span<float> out) {
  const auto lats = era5_latitudes(s.lat);
  const auto lons = era5_longitudes(s.lon);
  constexpr double deg = std::numbers::pi / 180.0;
  std::vector<double> lat_term(kModes * s.lat), lon_term(kModes * s.lon), profile(s.lat);
  for (std::uint64_t c = 0; c < s.channels; ++c) {
    const ChannelInfo info = channel_info(c);
    for (int k = 0; k < kModes; ++k) {
      const Mode md = mode_of(s.seed, c, k);
      for (std::uint64_t i = 0; i < s.lat; ++i)
        lat_term[k * s.lat + i] = info.amplitude * md.weight * std::cos(md.n * lats[i] * deg + md.lat_phase);
      const double shift = md.speed * static_cast<double>(t) + md.lon_phase;
      for (std::uint64_t j = 0; j < s.lon; ++j)
        lon_term[k * s.lon + j] = std::cos(md.m * lons[j] * deg - shift);
    }
    for (std::uint64_t i = 0; i < s.lat; ++i) {
      double cl = std::cos(lats[i] * deg);
      profile[i] = info.base + info.meridional * cl * cl;
    }
    float* plane = out.data() + c * s.lat * s.lon;
    const std::uint64_t noise_key = splitmix64(s.seed ^ splitmix64((t << 20) ^ c));
    for (std::uint64_t i = 0; i < s.lat; ++i) {
      float* row = plane + i * s.lon;
      for (std::uint64_t j = 0; j < s.lon; ++j) {
        double v = profile[i];
        for (int k = 0; k < kModes; ++k) v += lat_term[k * s.lat + i] * lon_term[k * s.lon + j];
        v += info.noise * (2 * unit(splitmix64(noise_key + i * s.lon + j)) - 1);
        v = std::max(v, info.min_value);
        row[j] = static_cast<float>(std::nearbyint(v / info.quantum) * info.quantum);
      }
    }
  }
}

}  // namespace zarrgpu::cli
