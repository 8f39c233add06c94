#include "codec_option.hpp"

#include "cli_args.hpp"

namespace zarrgpu::cli {

namespace {
std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    auto p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw UsageError("bad --codec '" + std::string(text) + "': " + why +
                   " (forms: none, zstd[:LEVEL], gzip[:LEVEL], blosc[:CNAME[:CLEVEL[:SHUFFLE]]], "
                   "each optionally followed by +crc32c)");
}

int level_in(std::string_view text, const std::string& s, int lo, int hi) {
  auto v = parse_integer(s);
  if (!v || *v < lo || *v > hi)
    bad(text, "level '" + s + "' is not in " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(*v);
}
}  // namespace

CodecChoice parse_codec_option(std::string_view text) {
  CodecChoice c;
  std::string_view body = text;
  constexpr std::string_view crc = "+crc32c";
  if (body.size() >= crc.size() && body.substr(body.size() - crc.size()) == crc) {
    c.crc32c = true;
    body.remove_suffix(crc.size());
  }
  auto parts = split(body, ':');
  const std::string& name = parts[0];
  if (name == "none" || name == "raw") {
    if (parts.size() > 1) bad(text, "'none' takes no parameters");
    c.kind = CodecChoice::Kind::none;
  } else if (name == "zstd") {
    c.kind = CodecChoice::Kind::zstd;
    c.level = 3;
    if (parts.size() > 2) bad(text, "zstd takes one parameter");
    if (parts.size() == 2) c.level = level_in(text, parts[1], -131072, 22);
  } else if (name == "gzip") {
    c.kind = CodecChoice::Kind::gzip;
    c.level = 5;
    if (parts.size() > 2) bad(text, "gzip takes one parameter");
    if (parts.size() == 2) c.level = level_in(text, parts[1], 0, 9);
  } else if (name == "blosc") {
    c.kind = CodecChoice::Kind::blosc;
    c.level = 5;
    if (parts.size() > 4) bad(text, "blosc takes at most three parameters");
    if (parts.size() >= 2) {
      const std::string& cn = parts[1];
      if (cn != "lz4" && cn != "lz4hc" && cn != "blosclz" && cn != "zstd" && cn != "zlib")
        bad(text, "unknown blosc compressor '" + cn + "'");
      c.blosc_cname = cn;
    }
    if (parts.size() >= 3) c.level = level_in(text, parts[2], 0, 9);
    if (parts.size() >= 4) {
      const std::string& sh = parts[3];
      if (sh != "noshuffle" && sh != "shuffle" && sh != "bitshuffle")
        bad(text, "unknown blosc shuffle '" + sh + "'");
      c.blosc_shuffle = sh;
    }
  } else {
    bad(text, "unknown codec '" + name + "'");
  }
  return c;
}

std::vector<CodecSpec> CodecChoice::v3_codecs(std::size_t typesize) const {
  std::vector<CodecSpec> out;
  switch (kind) {
    case Kind::none: break;
    case Kind::zstd: out.push_back({"zstd", json{{"level", level}, {"checksum", false}}}); break;
    case Kind::gzip: out.push_back({"gzip", json{{"level", level}}}); break;
    case Kind::blosc:
      out.push_back({"blosc", json{{"cname", blosc_cname}, {"clevel", level}, {"shuffle", blosc_shuffle},
                                   {"typesize", typesize}, {"blocksize", 0}}});
      break;
  }
  if (crc32c) out.push_back({"crc32c", json::object()});
  return out;
}

json CodecChoice::v2_compressor() const {
  if (crc32c) throw UsageError("--codec ...+crc32c needs --format 3 (format 2 has no crc32c codec)");
  switch (kind) {
    case Kind::none: return nullptr;
    case Kind::zstd: return json{{"id", "zstd"}, {"level", level}};
    case Kind::gzip: return json{{"id", "gzip"}, {"level", level}};
    case Kind::blosc: {
      int sh = blosc_shuffle == "noshuffle" ? 0 : blosc_shuffle == "shuffle" ? 1 : 2;
      return json{{"id", "blosc"}, {"cname", blosc_cname}, {"clevel", level}, {"shuffle", sh}, {"blocksize", 0}};
    }
  }
  return nullptr;
}

}  // namespace zarrgpu::cli
