// zarrgpu._zarrgpu: the process's settings (zarrgpu/config.hpp), the last
// read's report (zarrgpu/read_report.hpp) and releasing pooled device memory,
// as plain dicts; zarrgpu/_settings.py gives them their Python form.
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "zarrgpu/config.hpp"
#include "zarrgpu/device.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/read_report.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {
namespace {

nb::dict config_dict(const Config& c) {
  nb::dict d;
  d["threads"] = c.threads;
  d["io"] = std::string(to_string(c.io));
  d["zstd_decoder"] = std::string(to_string(c.zstd_decoder));
  d["lz4_decoder"] = std::string(to_string(c.lz4_decoder));
  d["blosc_decoder"] = std::string(to_string(c.blosc_decoder));
  d["readahead_bytes"] = c.readahead_bytes;
  d["staging_bytes"] = c.staging_bytes;
  d["staging_slots"] = c.staging_slots;
  d["scratch_bytes"] = c.scratch_bytes;
  d["read_piece_bytes"] = c.read_piece_bytes;
  d["keep_device_buffers"] = c.keep_device_buffers;
  d["memory_limit"] = c.memory_limit;
  return d;
}

// `changes`: field -> value, for the fields to change (the Python layer has
// checked the names and the types). When the environment did not parse, the
// fields not named start from the defaults.
void set_config_fields(const nb::dict& changes) {
  Config c;
  try {
    c = config();
  } catch (const Error&) {
  }
  for (auto [key, value] : changes) {
    const std::string k = nb::cast<std::string>(key);
    if (k == "threads") c.threads = nb::cast<unsigned>(value);
    else if (k == "io") {
      const std::string v = nb::cast<std::string>(value);
      const auto m = parse_io_mode(v);
      if (!m) throw Error(ErrorKind::invalid_argument, "io='" + v + "' is not auto, posix, gds or gds-compat");
      c.io = *m;
    } else if (k == "zstd_decoder" || k == "lz4_decoder" || k == "blosc_decoder") {
      const std::string v = nb::cast<std::string>(value);
      const auto d = parse_decoder_choice(v);
      if (!d) throw Error(ErrorKind::invalid_argument, k + "='" + v + "' is not auto, cpu or gpu");
      (k == "zstd_decoder" ? c.zstd_decoder : k == "lz4_decoder" ? c.lz4_decoder : c.blosc_decoder) = *d;
    } else if (k == "readahead_bytes") c.readahead_bytes = nb::cast<std::uint64_t>(value);
    else if (k == "staging_bytes") c.staging_bytes = nb::cast<std::uint64_t>(value);
    else if (k == "staging_slots") c.staging_slots = nb::cast<unsigned>(value);
    else if (k == "scratch_bytes") c.scratch_bytes = nb::cast<std::uint64_t>(value);
    else if (k == "read_piece_bytes") c.read_piece_bytes = nb::cast<std::uint64_t>(value);
    else if (k == "keep_device_buffers") c.keep_device_buffers = nb::cast<bool>(value);
    else if (k == "memory_limit") c.memory_limit = nb::cast<std::uint64_t>(value);
    else throw Error(ErrorKind::invalid_argument, "no setting named '" + k + "'");
  }
  set_config(c);
}

nb::dict report_dict(const ReadReport& r) {
  nb::dict d;
  d["device"] = r.device.to_string();
  d["io_path"] = r.io_path;
  d["io_detail"] = r.io_detail;
  d["store"] = r.store;
  d["requests"] = r.requests;
  d["retries"] = r.retries;
  d["bytes_fetched"] = r.bytes_fetched;
  d["decoder_detail"] = r.decoder_detail;
  nb::list codecs;
  for (const auto& c : r.codecs) {
    nb::dict cd;
    cd["codec"] = c.codec;
    cd["cpu_chunks"] = c.cpu_chunks;
    cd["gpu_chunks"] = c.gpu_chunks;
    codecs.append(cd);
  }
  d["codecs"] = codecs;
  d["chunks"] = r.chunks;
  d["missing_chunks"] = r.missing_chunks;
  d["bytes_read"] = r.bytes_read;
  d["bytes_decoded"] = r.bytes_decoded;
  d["bytes_out"] = r.bytes_out;
  d["seconds"] = r.seconds;
  d["seconds_read_threads"] = r.seconds_read_threads;
  d["seconds_decode_threads"] = r.seconds_decode_threads;
  return d;
}

}  // namespace

void bind_settings(nb::module_& m) {
  m.def("config", [] { return config_dict(config()); });
  m.def("set_config_fields", &set_config_fields);
  m.def("last_read_report", [] { return report_dict(last_read_report()); });
  m.def("release_device_memory", [] {
    nb::gil_scoped_release r;
    release_device_memory();
  });
}

}  // namespace zarrgpu::python
