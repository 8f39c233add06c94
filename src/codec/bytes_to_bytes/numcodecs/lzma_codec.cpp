#include "codec/bytes_to_bytes/numcodecs/lzma_codec.hpp"

#include <lzma.h>

#include <algorithm>
#include <string>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

// Python's lzma.FORMAT_* and CHECK_* values.
constexpr int kFormatAuto = 0, kFormatXz = 1, kFormatAlone = 2, kFormatRaw = 3;

std::string lzma_error(lzma_ret rc) {
  switch (rc) {
    case LZMA_FORMAT_ERROR: return "not an LZMA stream of this format";
    case LZMA_DATA_ERROR: return "data error (corrupt stream)";
    case LZMA_BUF_ERROR: return "truncated stream";
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_MEMLIMIT_ERROR: return "memory limit reached";
    case LZMA_OPTIONS_ERROR: return "unsupported options in the stream";
    case LZMA_UNSUPPORTED_CHECK: return "unsupported integrity check";
    case LZMA_PROG_ERROR: return "invalid arguments";
    default: return "liblzma error " + std::to_string(static_cast<int>(rc));
  }
}

struct Stream {
  lzma_stream s = LZMA_STREAM_INIT;
  ~Stream() { lzma_end(&s); }
};

// liblzma filter chain built from the configuration's filters (options
// storage kept alongside).
struct FilterChain {
  std::vector<lzma_options_lzma> lzma;
  std::vector<lzma_options_delta> delta;
  std::vector<lzma_filter> filters;
};

FilterChain build_chain(const std::vector<LzmaCodec::Filter>& in, std::string_view codec) {
  FilterChain c;
  c.lzma.reserve(in.size());
  c.delta.reserve(in.size());
  for (const auto& f : in) {
    if (f.id == LZMA_FILTER_LZMA1 || f.id == LZMA_FILTER_LZMA2) {
      lzma_options_lzma o{};
      if (lzma_lzma_preset(&o, f.preset))
        throw codec_error(ErrorKind::invalid_metadata, codec, "invalid filter preset " + std::to_string(f.preset));
      if (f.dict_size) o.dict_size = static_cast<std::uint32_t>(*f.dict_size);
      if (f.lc) o.lc = static_cast<std::uint32_t>(*f.lc);
      if (f.lp) o.lp = static_cast<std::uint32_t>(*f.lp);
      if (f.pb) o.pb = static_cast<std::uint32_t>(*f.pb);
      if (f.mode) o.mode = static_cast<lzma_mode>(*f.mode);
      if (f.nice_len) o.nice_len = static_cast<std::uint32_t>(*f.nice_len);
      if (f.mf) o.mf = static_cast<lzma_match_finder>(*f.mf);
      if (f.depth) o.depth = static_cast<std::uint32_t>(*f.depth);
      c.lzma.push_back(o);
      c.filters.push_back({f.id, &c.lzma.back()});
    } else {  // delta (checked when the configuration was read)
      lzma_options_delta o{};
      o.type = LZMA_DELTA_TYPE_BYTE;
      o.dist = f.dist;
      c.delta.push_back(o);
      c.filters.push_back({f.id, &c.delta.back()});
    }
  }
  c.filters.push_back({LZMA_VLI_UNKNOWN, nullptr});
  return c;
}

std::vector<LzmaCodec::Filter> parse_filters(const json& v, const Configuration& config) {
  if (!v.is_array()) config.fail("filters must be null or a list, got " + v.dump());
  if (v.empty() || v.size() > LZMA_FILTERS_MAX) config.fail("filters must list 1 to 4 filters");
  std::vector<LzmaCodec::Filter> out;
  for (const json& f : v) {
    if (!f.is_object() || !f.contains("id") || !f["id"].is_number_integer())
      config.fail("each filter must be an object with an integer \"id\", got " + f.dump());
    LzmaCodec::Filter x;
    x.id = f["id"].get<std::uint64_t>();
    const bool is_lzma = x.id == LZMA_FILTER_LZMA1 || x.id == LZMA_FILTER_LZMA2;
    if (!is_lzma && x.id != LZMA_FILTER_DELTA)
      throw codec_error(ErrorKind::unsupported, "numcodecs.lzma",
                        "filter id " + std::to_string(x.id) +
                            " is not supported (supported: delta 3, LZMA1, LZMA2 33)");
    for (const auto& [key, value] : f.items()) {
      if (key == "id") continue;
      if (!value.is_number_integer()) config.fail("filter option \"" + key + "\" must be an integer");
      const std::int64_t n = value.get<std::int64_t>();
      if (n < 0 || n > UINT32_MAX) config.fail("filter option \"" + key + "\" is out of range");
      if (is_lzma && key == "preset") x.preset = static_cast<std::uint32_t>(n);
      else if (is_lzma && key == "dict_size") x.dict_size = n;
      else if (is_lzma && key == "lc") x.lc = n;
      else if (is_lzma && key == "lp") x.lp = n;
      else if (is_lzma && key == "pb") x.pb = n;
      else if (is_lzma && key == "mode") x.mode = n;
      else if (is_lzma && key == "nice_len") x.nice_len = n;
      else if (is_lzma && key == "mf") x.mf = n;
      else if (is_lzma && key == "depth") x.depth = n;
      else if (!is_lzma && key == "dist") x.dist = static_cast<std::uint32_t>(n);
      else config.fail("unknown option \"" + key + "\" of filter " + std::to_string(x.id));
    }
    out.push_back(x);
  }
  // liblzma: the last filter compresses (LZMA1/LZMA2), the others transform.
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool is_lzma = out[i].id == LZMA_FILTER_LZMA1 || out[i].id == LZMA_FILTER_LZMA2;
    if (is_lzma != (i + 1 == out.size())) config.fail("the filter chain must end with its only LZMA1/LZMA2 filter");
  }
  return out;
}

// Runs `s` over `in` to the end of its stream(s), into at most `cap` bytes
// (Error(corrupt_data) past it; the buffer grows by doubling up to it); with
// `exact`, the result must be exactly `cap` bytes.
Bytes run(lzma_stream& s, std::span<const std::byte> in, std::size_t cap, bool exact, std::string_view codec) {
  Bytes out(exact ? cap : std::min(cap, std::max<std::size_t>(in.size() * 4, 1 << 16)));
  std::byte extra[1];
  s.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  s.avail_in = in.size();
  std::size_t produced = 0;
  for (;;) {
    if (produced == out.size() && out.size() < cap)
      out.resize(cap / 2 < out.size() ? cap : out.size() * 2);
    // At the cap: decode one more byte only to see whether the data goes on.
    const bool probing = produced == out.size();
    s.next_out = reinterpret_cast<std::uint8_t*>(probing ? extra : out.data() + produced);
    s.avail_out = probing ? 1 : out.size() - produced;
    const std::size_t before = s.avail_out;
    const lzma_ret rc = lzma_code(&s, LZMA_FINISH);
    if (probing && s.avail_out == 0)
      throw codec_error(ErrorKind::corrupt_data, codec,
                        "decodes to more than the " + std::to_string(cap) + " bytes the chunk's metadata allows");
    if (!probing) produced += before - s.avail_out;
    if (rc == LZMA_STREAM_END) break;
    if (rc == LZMA_MEMLIMIT_ERROR)
      throw codec_error(ErrorKind::corrupt_data, codec,
                        "the stream's header asks for " + std::to_string(lzma_memusage(&s) >> 20) +
                            " MiB to decode (its dictionary), more than a chunk of at most " + std::to_string(cap) +
                            " bytes needs (limit " + std::to_string(lzma_memlimit_get(&s) >> 20) + " MiB)");
    // Without progress liblzma answers LZMA_BUF_ERROR on the next call: truncated.
    if (rc != LZMA_OK) throw codec_error(ErrorKind::corrupt_data, codec, lzma_error(rc));
  }
  if (exact && produced != cap)
    throw codec_error(ErrorKind::corrupt_data, codec,
                      "decoded " + std::to_string(produced) + " bytes, expected " + std::to_string(cap));
  out.resize(produced);
  return out;
}

// What a decoder may allocate (its dictionary, mostly) for a stream that
// decodes to at most `cap` bytes: the largest preset's dictionary (preset 9,
// 64 MiB, which numcodecs' streams of any size may name), or the decoded
// size the metadata allows when that is larger, and liblzma's overhead. A
// header that names more (a 4 GiB dictionary before 4 KiB of data) is
// refused instead of allocated.
std::uint64_t decoder_memory_limit(std::size_t cap) {
  constexpr std::uint64_t kPreset9Dictionary = 64ull << 20, kOverhead = 8ull << 20;
  const std::uint64_t data = cap == SIZE_MAX ? 0 : static_cast<std::uint64_t>(cap);
  return std::max(kPreset9Dictionary, data) + std::min<std::uint64_t>(data / 8, 64ull << 20) + kOverhead;
}

// A decoder for `format` over `filters` (raw only), allocating at most `memlimit`.
void start_decoder(lzma_stream& s, int format, const std::optional<std::vector<LzmaCodec::Filter>>& filters,
                   std::string_view codec, std::uint64_t memlimit) {
  lzma_ret rc;
  switch (format) {
    case kFormatXz: rc = lzma_stream_decoder(&s, memlimit, LZMA_CONCATENATED); break;
    case kFormatAlone: rc = lzma_alone_decoder(&s, memlimit); break;
    case kFormatRaw: {
      // The filters (and so the memory) come from the metadata, not from the data.
      const FilterChain chain = build_chain(*filters, codec);
      rc = lzma_raw_decoder(&s, chain.filters.data());  // copies the options it needs
      break;
    }
    default: rc = lzma_auto_decoder(&s, memlimit, LZMA_CONCATENATED); break;
  }
  if (rc != LZMA_OK) throw codec_error(ErrorKind::invalid_metadata, codec, "liblzma cannot start: " + lzma_error(rc));
}

}  // namespace

LzmaCodec::LzmaCodec(const CodecSpec& spec, const ChunkRepresentation&) {
  Configuration config(spec);
  configuration_ = spec.configuration.is_object() ? spec.configuration : json::object();
  const std::int64_t format = config.integer("format", kFormatXz);
  if (format < kFormatAuto || format > kFormatRaw)
    config.fail("format must be 0 (auto), 1 (xz), 2 (alone) or 3 (raw), got " + std::to_string(format));
  format_ = static_cast<int>(format);
  // Decoding needs neither the check nor the preset (the stream names its
  // own); an encoder-rejected value is reported when encoding.
  check_ = config.integer("check", -1);
  if (config.has("preset") && !config.at("preset").is_null()) preset_ = config.integer("preset");
  if (config.has("filters") && !config.at("filters").is_null()) filters_ = parse_filters(config.at("filters"), config);
  if (format_ == kFormatRaw && !filters_) config.fail("format 3 (raw) needs a filter chain");
  if (filters_ && preset_) config.fail("preset and filters exclude each other");
}

CodecSpec LzmaCodec::spec() const {
  CodecSpec s;
  s.name = "numcodecs.lzma";
  // numcodecs.LZMA().get_config() lists every parameter.
  s.configuration = {{"format", format_}, {"check", check_}, {"preset", nullptr}, {"filters", nullptr}};
  if (configuration_.contains("preset")) s.configuration["preset"] = configuration_["preset"];
  if (configuration_.contains("filters")) s.configuration["filters"] = configuration_["filters"];
  return s;
}

Bytes LzmaCodec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  Stream st;
  const std::size_t cap = expected_size ? expected_size : SIZE_MAX;
  start_decoder(st.s, format_, filters_, name(), decoder_memory_limit(cap));
  return run(st.s, in, cap, expected_size != 0, name());
}

Bytes LzmaCodec::decode_at_most(std::span<const std::byte> in, std::size_t max_size) const {
  Stream st;
  start_decoder(st.s, format_, filters_, name(), decoder_memory_limit(max_size));
  return run(st.s, in, max_size, false, name());
}

std::size_t LzmaCodec::max_encoded_size(std::size_t decoded_size) const {
  // liblzma's bound for a single-block .xz stream (0 when it overflows); the
  // alone and raw formats take less.
  const std::size_t bound = lzma_stream_buffer_bound(decoded_size);
  return bound ? bound : SIZE_MAX;
}

Bytes LzmaCodec::encode(std::span<const std::byte> in) const {
  // What Python's LZMACompressor starts for each format.
  Stream st;
  lzma_ret rc = LZMA_OK;
  const auto preset = static_cast<std::uint32_t>(preset_.value_or(LZMA_PRESET_DEFAULT));
  std::optional<FilterChain> chain;
  if (filters_) chain = build_chain(*filters_, name());
  if (preset_ && (*preset_ < 0 || *preset_ > UINT32_MAX))
    throw codec_error(ErrorKind::invalid_metadata, name(), "preset " + std::to_string(*preset_) + " is out of range: cannot encode");
  switch (format_) {
    case kFormatXz: {
      if (check_ != -1 && check_ != LZMA_CHECK_NONE && check_ != LZMA_CHECK_CRC32 && check_ != LZMA_CHECK_CRC64 &&
          check_ != LZMA_CHECK_SHA256)
        throw codec_error(ErrorKind::invalid_metadata, name(),
                          "check " + std::to_string(check_) + " is not -1, 0, 1, 4 or 10: cannot encode");
      const auto check = check_ == -1 ? LZMA_CHECK_CRC64 : static_cast<lzma_check>(check_);
      rc = chain ? lzma_stream_encoder(&st.s, chain->filters.data(), check) : lzma_easy_encoder(&st.s, preset, check);
      break;
    }
    case kFormatAlone: {
      if (check_ != -1 && check_ != LZMA_CHECK_NONE)
        throw codec_error(ErrorKind::invalid_metadata, name(), "format 2 (alone) has no integrity check: cannot encode");
      lzma_options_lzma o{};
      if (chain) {
        if (chain->filters.size() != 2 || chain->filters[0].id != LZMA_FILTER_LZMA1)
          throw codec_error(ErrorKind::invalid_metadata, name(), "format 2 (alone) takes one LZMA1 filter: cannot encode");
        o = chain->lzma.front();
      } else if (lzma_lzma_preset(&o, preset)) {
        rc = LZMA_OPTIONS_ERROR;
        break;
      }
      rc = lzma_alone_encoder(&st.s, &o);
      break;
    }
    case kFormatRaw:
      if (check_ != -1 && check_ != LZMA_CHECK_NONE)
        throw codec_error(ErrorKind::invalid_metadata, name(), "format 3 (raw) has no integrity check: cannot encode");
      rc = lzma_raw_encoder(&st.s, chain->filters.data());
      break;
    default:
      throw codec_error(ErrorKind::invalid_metadata, name(), "format 0 (auto) only decodes: cannot encode");
  }
  if (rc != LZMA_OK)
    throw codec_error(ErrorKind::invalid_metadata, name(), "liblzma rejects the configuration: " + lzma_error(rc));
  Bytes out(lzma_stream_buffer_bound(in.size()));
  st.s.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  st.s.avail_in = in.size();
  std::size_t produced = 0;
  for (;;) {
    if (produced == out.size()) out.resize(out.size() * 2);
    st.s.next_out = reinterpret_cast<std::uint8_t*>(out.data() + produced);
    st.s.avail_out = out.size() - produced;
    const std::size_t before = st.s.avail_out;
    rc = lzma_code(&st.s, LZMA_FINISH);
    produced += before - st.s.avail_out;
    if (rc == LZMA_STREAM_END) break;
    if (rc != LZMA_OK) throw codec_error(ErrorKind::internal, name(), "liblzma failed to compress: " + lzma_error(rc));
  }
  out.resize(produced);
  return out;
}

}  // namespace zarrgpu::codec
