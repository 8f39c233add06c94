// Synthetic ERA5-like fields for `zarrgpu generate era5`.
//
// Each channel is a smooth field on the sphere — a meridional profile (warm
// equator, cold poles) plus a few separable cos(n·lat)·cos(m·lon − ω·t)
// modes that drift with time — plus small noise, quantised to a power of two
// as GRIB's 16-bit packing does, so zstd compresses it about as much as real
// reanalysis data (1.3–2x), not 100x. Values depend only on (seed, t, c, i, j):
// any thread may produce any time step and the result is the same.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zarrgpu::cli {

struct Era5Shape {
  std::uint64_t time = 8, channels = 4, lat = 181, lon = 360;
  std::uint64_t seed = 0;
  std::uint64_t elements_per_step() const noexcept { return channels * lat * lon; }
};

struct ChannelInfo {
  std::string name;       // "t2m"
  std::string long_name;  // "2 metre temperature"
  std::string units;      // "K"
  double base = 0;        // value at the poles before modes
  double meridional = 0;  // added at the equator (times cos^2 lat)
  double amplitude = 0;   // of the drifting modes
  double noise = 0;       // of the per-point noise (uniform, ±)
  double quantum = 1;     // values are multiples of this (a power of two)
  double min_value = -1e300;
};

// Channel c of the dataset (cycles through t2m, u10, v10, msl, tcwv, z500,
// t850, sp; repeats get a suffix "_2", "_3", ...).
ChannelInfo channel_info(std::uint64_t c);

// Latitudes 90 → −90 (ERA5's order), `n` points; longitudes 0 ≤ λ < 360.
std::vector<double> era5_latitudes(std::uint64_t n);
std::vector<double> era5_longitudes(std::uint64_t n);

// Fills `out` (channels × lat × lon floats, C order) with time step `t`.
void synthesize_time_step(const Era5Shape& s, std::uint64_t t, std::span<float> out);

}  // namespace zarrgpu::cli
