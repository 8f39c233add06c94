#include "codec/bytes_to_bytes/gzip/deflate_stream.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "codec/codec.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

struct Inflater {
  z_stream z{};
  explicit Inflater(std::string_view codec) {
    // 15 + 32: a 32 KiB window, and detect the gzip or zlib header itself.
    if (inflateInit2(&z, 15 + 32) != Z_OK) throw codec_error(ErrorKind::internal, codec, "inflateInit2 failed");
  }
  ~Inflater() { inflateEnd(&z); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
};

// Inflates into `out`; when `grow` is given, `out` is its span and may be
// enlarged up to `limit` bytes. Returns the bytes written.
std::size_t inflate_members(std::span<const std::byte> in, std::span<std::byte> out, Bytes* grow,
                            std::string_view codec, std::size_t limit = SIZE_MAX) {
  if (in.empty()) throw codec_error(ErrorKind::corrupt_data, codec, "empty stream");
  Inflater inf(codec);
  z_stream& z = inf.z;
  std::size_t in_pos = 0, out_pos = 0;
  unsigned char probe;  // where a full fixed-size output lets the stream end
  for (;;) {
    if (out_pos == out.size() && grow && out.size() < limit) {
      grow->resize(std::min(std::max<std::size_t>(out.size() > limit / 2 ? limit : out.size() * 2, 1 << 16), limit));
      out = grow->span();
    }
    const bool probing = out_pos == out.size();
    if (probing) {
      z.next_out = &probe;
      z.avail_out = 1;
    } else {
      z.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
      z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - out_pos, UINT_MAX));
    }
    const std::size_t avail_out_before = z.avail_out;
    z.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data() + in_pos));
    z.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size() - in_pos, UINT_MAX));
    const std::size_t avail_in_before = z.avail_in;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t produced = avail_out_before - z.avail_out;
    in_pos += avail_in_before - z.avail_in;
    if (probing && produced)
      throw codec_error(ErrorKind::corrupt_data, codec,
                        "decompresses to more than the expected " + std::to_string(out.size()) + " bytes");
    out_pos += produced;
    switch (rc) {
      case Z_STREAM_END:
        if (in_pos == in.size()) return out_pos;
        // Another member follows (RFC 1952 §2.2).
        if (inflateReset(&z) != Z_OK) throw codec_error(ErrorKind::internal, codec, "inflateReset failed");
        continue;
      case Z_OK:
        continue;
      case Z_BUF_ERROR:  // no progress possible
        if (in_pos == in.size()) throw codec_error(ErrorKind::corrupt_data, codec, "truncated stream");
        continue;
      case Z_NEED_DICT:
        throw codec_error(ErrorKind::unsupported, codec, "stream needs a preset dictionary");
      case Z_MEM_ERROR:
        throw std::bad_alloc();
      default:
        throw codec_error(ErrorKind::corrupt_data, codec, std::string("zlib: ") + (z.msg ? z.msg : "data error"));
    }
  }
}

}  // namespace

Bytes inflate_all(std::span<const std::byte> in, std::size_t expected_size, std::string_view codec) {
  if (expected_size) {
    Bytes out(expected_size);
    inflate_into(in, out.span(), codec);
    return out;
  }
  return inflate_at_most(in, SIZE_MAX, codec);
}

Bytes inflate_at_most(std::span<const std::byte> in, std::size_t max_size, std::string_view codec) {
  Bytes out(std::min(std::max<std::size_t>(in.size() * 4, 1 << 16), max_size));
  const std::size_t n = inflate_members(in, out.span(), &out, codec, max_size);
  out.resize(n);
  return out;
}

std::size_t max_deflate_size(std::size_t n) {
  // compressBound (zlib.h) for stored blocks at worst, in size_t; gzip adds
  // a header (with optional name, comment and extra fields) and a trailer.
  const std::size_t bound = saturating_add(n, (n >> 12) + (n >> 14) + (n >> 25) + 13);
  return saturating_add(bound, std::size_t(1) << 16);
}

void inflate_into(std::span<const std::byte> in, std::span<std::byte> out, std::string_view codec) {
  const std::size_t n = inflate_members(in, out, nullptr, codec);
  if (n != out.size())
    throw codec_error(ErrorKind::corrupt_data, codec,
                      "decompressed " + std::to_string(n) + " bytes, expected " + std::to_string(out.size()));
}

int deflate_level(std::int64_t level, std::string_view codec) {
  if (level < -1 || level > 9)
    throw codec_error(ErrorKind::invalid_metadata, codec,
                      "level " + std::to_string(level) + " is outside [-1, 9]: cannot encode");
  return static_cast<int>(level);
}

Bytes gzip_member(std::span<const std::byte> in, int level, std::string_view codec) {
  z_stream z{};
  // Raw deflate (-15) with the header and trailer written here, as Python's
  // gzip module does.
  if (deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw codec_error(ErrorKind::internal, codec, "deflateInit2 failed");
  const std::size_t bound = deflateBound(&z, in.size());
  Bytes out(10 + bound + 8);
  const unsigned char xfl = level == 9 ? 2 : level == 1 ? 4 : 0;
  const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 255};
  std::memcpy(out.data(), header, 10);
  z.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data() + 10);
  z.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&z, Z_FINISH);
  const std::size_t body = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw codec_error(ErrorKind::internal, codec, "deflate did not finish");
  const std::uint32_t crc = static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(in.data()), static_cast<uInt>(in.size())));
  const std::uint32_t isize = static_cast<std::uint32_t>(in.size());
  std::memcpy(out.data() + 10 + body, &crc, 4);  // RFC 1952 §2.3.1: little-endian
  std::memcpy(out.data() + 14 + body, &isize, 4);
  out.resize(18 + body);
  return out;
}

Bytes zlib_stream(std::span<const std::byte> in, int level, std::string_view codec) {
  uLongf n = compressBound(static_cast<uLong>(in.size()));
  Bytes out(n);
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(in.data()),
                static_cast<uLong>(in.size()), level) != Z_OK)
    throw codec_error(ErrorKind::internal, codec, "compress2 failed");
  out.resize(n);
  return out;
}

}  // namespace zarrgpu::codec
