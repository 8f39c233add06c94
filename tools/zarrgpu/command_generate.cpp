// zarrgpu generate era5 DST: an ERA5-like group for demos, tests and benchmarks.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <thread>

#include "array_layout.hpp"
#include "byte_size.hpp"
#include "cli_args.hpp"
#include "codec_option.hpp"
#include "commands.hpp"
#include "consolidated_writer.hpp"
#include "era5_field.hpp"
#include "parallel_blocks.hpp"
#include "progress.hpp"
#include "staged_directory.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"time", true, "N", "time steps (default 8)"},
    {"channels", true, "N", "channels: t2m, u10, v10, msl, tcwv, z500, t850, sp, then repeats (default 4)"},
    {"lat", true, "N", "latitudes, 90 to -90 (default 181; ERA5 is 721)"},
    {"lon", true, "N", "longitudes, 0 to 360 (default 360; ERA5 is 1440)"},
    {"variant", true, "V", "zstd (default): one time step per chunk, zstd; sharded: shards of --shard-time "
                           "steps, inner chunks of one step; raw: no compression"},
    {"shard-time", true, "N", "time steps per shard in the sharded variant (default 4)"},
    {"level", true, "N", "zstd level (default 3)"},
    {"format", true, "3|2", "Zarr format (default 3; the sharded variant needs 3)"},
    {"seed", true, "S", "seed of the fields (default 0); the same seed gives the same bytes"},
    {"threads", true, "N", "worker threads (default: all cores)"},
    {"memory", true, "SIZE", "memory budget for time steps in flight (default 2GiB)"},
    {"overwrite", false, "", "replace DST if it exists"},
    {"no-fsync", false, "", "skip syncing DST to disk before it is renamed into place (scratch output)"},
    {"quiet", false, "", "no progress report"},
    {"help", false, "", "show this help"},
};

const char* kUsage =
    "usage: zarrgpu generate era5 DST [--time 8] [--channels 4] [--lat 181] [--lon 360]\n"
    "                                 [--variant zstd|sharded|raw] [--format 3|2] [--seed S]\n"
    "\n"
    "Writes an ERA5-like group: `data` float32 [time, channel, lat, lon] (smooth drifting\n"
    "fields with plausible magnitudes plus small noise, quantised like GRIB packing, so\n"
    "zstd compresses it 1.3-2x), one time step per chunk, and coordinate arrays `time`\n"
    "(hours since 1979-01-01, 6-hourly), `lat` and `lon` with CF attributes, so xarray\n"
    "opens it. Consolidated metadata is written. Time steps are generated and encoded in\n"
    "parallel; the output depends only on the options and --seed.\n"
    "\noptions:\n";

std::uint64_t positive(const Args& a, const char* name, std::uint64_t fallback) {
  auto v = a.integer(name);
  if (!v) return fallback;
  if (*v < 1) throw UsageError(std::string("--") + name + " must be at least 1");
  return static_cast<std::uint64_t>(*v);
}

std::span<const std::byte> as_bytes_of(const void* p, std::size_t n) {
  return {static_cast<const std::byte*>(p), n};
}

ChunkEncoding raw_encoding() {
  ChunkEncoding e;
  e.v3_chain = little_endian_chain({});
  return e;
}

ChunkEncoding encoding_for(const CodecChoice& c, std::size_t typesize, int format) {
  ChunkEncoding e;
  if (format == 3) e.v3_chain = little_endian_chain(c.v3_codecs(typesize));
  else e.v2.compressor = c.v2_compressor();
  return e;
}

}  // namespace

int run_generate(const std::vector<std::string>& argv) {
  Args args = Args::parse(argv, kOptions);
  if (args.flag("help")) {
    std::cout << kUsage << format_options(kOptions);
    return 0;
  }
  const auto& pos = args.positionals();
  if (pos.empty()) throw UsageError("generate needs a dataset kind: era5");
  if (pos[0] != "era5") throw UsageError("unknown dataset '" + pos[0] + "' (known: era5)");
  if (pos.size() != 2) throw UsageError("generate era5 needs exactly one DST argument");
  const std::string dst = pos[1];

  Era5Shape s;
  s.time = positive(args, "time", 8);
  s.channels = positive(args, "channels", 4);
  s.lat = positive(args, "lat", 181);
  s.lon = positive(args, "lon", 360);
  if (auto seed = args.integer("seed")) s.seed = static_cast<std::uint64_t>(*seed);
  const std::string variant = args.value_or("variant", "zstd");
  if (variant != "zstd" && variant != "sharded" && variant != "raw")
    throw UsageError("--variant must be zstd, sharded or raw, not '" + variant + "'");
  const int format = static_cast<int>(args.integer("format").value_or(3));
  if (format != 2 && format != 3) throw UsageError("--format must be 2 or 3");
  if (variant == "sharded" && format != 3) throw UsageError("the sharded variant needs --format 3");
  const std::uint64_t shard_time = std::min(positive(args, "shard-time", 4), s.time);
  const int level = static_cast<int>(args.integer("level").value_or(3));
  unsigned threads = static_cast<unsigned>(positive(args, "threads", std::max(1u, std::thread::hardware_concurrency())));

  std::uint64_t budget = 2ull << 30;
  if (auto m = args.value("memory")) {
    auto b = parse_byte_size(*m);
    if (!b || *b == 0) throw UsageError("bad --memory '" + *m + "' (e.g. 512MiB, 2GiB)");
    budget = *b;
  }

  install_cancel_handlers();
  for (const auto& note : repair_leftovers(dst)) std::cerr << "zarrgpu generate: " << note << "\n";
  StagedDirectory staged(dst, args.flag("overwrite"), !args.flag("no-fsync"));
  auto store = open_local_store(staged.staging_path(), true, WriteSync::none);  // synced as a tree at commit

  GroupMetadata root;
  root.zarr_format = format;
  root.attributes = json{{"title", "ERA5-like synthetic reanalysis"},
                         {"source", "zarrgpu generate era5"},
                         {"seed", s.seed},
                         {"Conventions", "CF-1.8"}};
  Group::create(store, "", root);
  std::vector<std::pair<std::string, NodeMetadata>> nodes;

  // Coordinates: small, one chunk each, uncompressed.
  ArrayLayout coord;
  coord.zarr_format = format;
  coord.encoding = raw_encoding();
  FillValue coord_fill;
  if (format == 2) coord_fill.is_null = true;  // xarray would mask a fill value of 0 in `time`
  auto write_coord = [&](const std::string& name, DataType t, const void* data, std::uint64_t n, json attrs) {
    coord.chunks = {n};
    ArrayMetadata m = build_array_metadata(name, {n}, t, coord_fill, coord, {name}, std::move(attrs));
    Array a = Array::create(store, name, m);
    a.write(Selection{}, as_bytes_of(data, n * size_of(t)));
    nodes.emplace_back(name, m);
  };
  std::vector<std::int64_t> hours(s.time);
  for (std::uint64_t t = 0; t < s.time; ++t) hours[t] = static_cast<std::int64_t>(6 * t);
  write_coord("time", DataType::int64, hours.data(), s.time,
              json{{"units", "hours since 1979-01-01 00:00:00"}, {"calendar", "proleptic_gregorian"},
                   {"long_name", "time"}, {"standard_name", "time"}, {"axis", "T"}});
  auto lats = era5_latitudes(s.lat);
  write_coord("lat", DataType::float64, lats.data(), s.lat,
              json{{"units", "degrees_north"}, {"long_name", "latitude"}, {"standard_name", "latitude"}, {"axis", "Y"}});
  auto lons = era5_longitudes(s.lon);
  write_coord("lon", DataType::float64, lons.data(), s.lon,
              json{{"units", "degrees_east"}, {"long_name", "longitude"}, {"standard_name", "longitude"}, {"axis", "X"}});

  // The variable.
  ArrayLayout layout;
  layout.zarr_format = format;
  CodecChoice zstd;
  zstd.kind = CodecChoice::Kind::zstd;
  zstd.level = level;
  layout.encoding = variant == "raw" ? (format == 3 ? raw_encoding() : ChunkEncoding{}) : encoding_for(zstd, 4, format);
  std::uint64_t step_time = 1;
  if (variant == "sharded") {
    layout.chunks = {shard_time, s.channels, s.lat, s.lon};
    layout.inner_chunks = {1, s.channels, s.lat, s.lon};
    step_time = shard_time;
  } else {
    layout.chunks = {1, s.channels, s.lat, s.lon};
  }
  json names = json::array(), units = json::array(), long_names = json::array();
  for (std::uint64_t c = 0; c < s.channels; ++c) {
    auto info = channel_info(c);
    names.push_back(info.name);
    units.push_back(info.units);
    long_names.push_back(info.long_name);
  }
  json attrs{{"long_name", "ERA5-like surface and pressure-level fields"},
             {"channel_names", names}, {"channel_units", units}, {"channel_long_names", long_names}};
  const std::vector<std::uint64_t> shape{s.time, s.channels, s.lat, s.lon};
  ArrayMetadata m = build_array_metadata("data", shape, DataType::float32,
                                         FillValue::of(std::numeric_limits<float>::quiet_NaN()), layout,
                                         {"time", "channel", "lat", "lon"}, attrs);
  Array data = Array::create(store, "data", m);
  nodes.emplace_back("data", m);

  const std::uint64_t step_elems = s.elements_per_step();
  const std::uint64_t units_count = (s.time + step_time - 1) / step_time;
  Progress progress("generate", s.time * step_elems * 4, Progress::mode_for(stderr, args.flag("quiet")));
  WriteOptions wo;
  wo.threads = 1;  // parallel across time steps instead
  wo.write_empty_chunks = true;
  try {
    // Each worker holds one unit (a time step, or a shard of them) at a time.
    const std::uint64_t unit_bytes = step_time * step_elems * sizeof(float);
    const std::uint64_t workers = std::clamp<std::uint64_t>(budget / unit_bytes, 1, threads);
    for_each_block(units_count, static_cast<unsigned>(std::min(workers, units_count)), [&](std::uint64_t u) {
      std::uint64_t t0 = u * step_time, t1 = std::min(s.time, t0 + step_time);
      std::vector<float> buf((t1 - t0) * step_elems);
      for (std::uint64_t t = t0; t < t1; ++t)
        synthesize_time_step(s, t, std::span<float>(buf.data() + (t - t0) * step_elems, step_elems));
      Selection sel({DimSelection::slice(static_cast<std::int64_t>(t0), static_cast<std::int64_t>(t1))});
      data.write(sel, as_bytes_of(buf.data(), buf.size() * sizeof(float)), wo);
      progress.add(buf.size() * sizeof(float));
    });
  } catch (...) {
    progress.finish(false);
    throw;
  }
  progress.finish();
  write_consolidated(*store, root, nodes);
  store.reset();
  staged.commit();
  return 0;
}

}  // namespace zarrgpu::cli
