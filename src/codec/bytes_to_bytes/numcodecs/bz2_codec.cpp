#include "codec/bytes_to_bytes/numcodecs/bz2_codec.hpp"

#include <bzlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

std::string bz_error(int rc) {
  switch (rc) {
    case BZ_DATA_ERROR: return "data error (bad block or stream CRC)";
    case BZ_DATA_ERROR_MAGIC: return "not a bzip2 stream (bad magic)";
    case BZ_MEM_ERROR: return "out of memory";
    case BZ_PARAM_ERROR: return "bad parameter";
    default: return "libbzip2 error " + std::to_string(rc);
  }
}

class Decompressor {
 public:
  explicit Decompressor(std::string_view codec) : codec_(codec) { start(); }
  ~Decompressor() { BZ2_bzDecompressEnd(&s_); }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  void start() {
    s_ = {};
    const int rc = BZ2_bzDecompressInit(&s_, 0, 0);
    if (rc != BZ_OK) throw codec_error(ErrorKind::internal, codec_, "libbzip2 cannot start: " + bz_error(rc));
  }
  void restart() {
    BZ2_bzDecompressEnd(&s_);
    start();
  }
  // One step: returns BZ_OK or BZ_STREAM_END; consumed/produced through the pointers.
  int step(const std::byte*& in, std::size_t& in_left, std::byte*& out, std::size_t& out_left) {
    s_.next_in = const_cast<char*>(reinterpret_cast<const char*>(in));
    s_.avail_in = static_cast<unsigned>(std::min<std::size_t>(in_left, UINT_MAX));
    s_.next_out = reinterpret_cast<char*>(out);
    s_.avail_out = static_cast<unsigned>(std::min<std::size_t>(out_left, UINT_MAX));
    const unsigned in0 = s_.avail_in, out0 = s_.avail_out;
    const int rc = BZ2_bzDecompress(&s_);
    in += in0 - s_.avail_in;
    in_left -= in0 - s_.avail_in;
    out += out0 - s_.avail_out;
    out_left -= out0 - s_.avail_out;
    if (rc != BZ_OK && rc != BZ_STREAM_END) throw codec_error(ErrorKind::corrupt_data, codec_, bz_error(rc));
    progressed_ = in0 != s_.avail_in || out0 != s_.avail_out;
    return rc;
  }
  bool progressed() const noexcept { return progressed_; }

 private:
  bz_stream s_{};
  std::string_view codec_;
  bool progressed_ = false;
};

bool starts_stream(const std::byte* p, std::size_t n) {
  return n >= 3 && p[0] == std::byte{'B'} && p[1] == std::byte{'Z'} && p[2] == std::byte{'h'};
}

}  // namespace

Bz2Codec::Bz2Codec(const CodecSpec& spec, const ChunkRepresentation&) {
  Configuration config(spec);
  level_ = config.integer("level", 1);  // numcodecs.BZ2's default
}

CodecSpec Bz2Codec::spec() const {
  CodecSpec s;
  s.name = "numcodecs.bz2";
  s.configuration = {{"level", level_}};
  return s;
}

namespace {

// Decodes every stream of `in` into at most `cap` bytes (Error(corrupt_data)
// past it; the buffer grows by doubling up to it); with `exact`, the result
// must be exactly `cap` bytes.
Bytes decompress(std::span<const std::byte> in, std::size_t cap, bool exact, std::string_view codec) {
  Bytes out(exact ? cap : std::min(cap, std::max<std::size_t>(in.size() * 4, 1 << 16)));
  std::size_t produced = 0;
  const std::byte* ip = in.data();
  std::size_t in_left = in.size();
  if (!starts_stream(ip, in_left)) throw codec_error(ErrorKind::corrupt_data, codec, "not a bzip2 stream");
  Decompressor d(codec);
  for (;;) {
    std::byte extra[1];
    const bool full = produced == out.size();
    if (full && out.size() < cap) out.resize(std::min(cap / 2 < out.size() ? cap : out.size() * 2, cap));
    // At the cap: decode one more byte only to see whether the data goes on.
    const bool probing = produced == out.size();
    std::byte* op = probing ? extra : out.data() + produced;
    std::size_t out_left = probing ? 1 : out.size() - produced;
    const int rc = d.step(ip, in_left, op, out_left);
    if (probing && out_left == 0)
      throw codec_error(ErrorKind::corrupt_data, codec,
                        "decodes to more than the " + std::to_string(cap) + " bytes the chunk's metadata allows");
    if (!probing) produced = out.size() - out_left;
    if (rc == BZ_STREAM_END) {
      if (!starts_stream(ip, in_left)) break;  // bz2.decompress ignores trailing non-bzip2 data
      d.restart();
      continue;
    }
    if (!d.progressed()) throw codec_error(ErrorKind::corrupt_data, codec, "truncated bzip2 stream");
  }
  if (exact && produced != cap)
    throw codec_error(ErrorKind::corrupt_data, codec,
                      "decoded " + std::to_string(produced) + " bytes, expected " + std::to_string(cap));
  out.resize(produced);
  return out;
}

}  // namespace

Bytes Bz2Codec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  return expected_size ? decompress(in, expected_size, true, name()) : decompress(in, SIZE_MAX, false, name());
}

Bytes Bz2Codec::decode_at_most(std::span<const std::byte> in, std::size_t max_size) const {
  return decompress(in, max_size, false, name());
}

std::size_t Bz2Codec::max_encoded_size(std::size_t decoded_size) const {
  // libbzip2's documented bound, as encode() uses it.
  return saturating_add(decoded_size, decoded_size / 100 + 600);
}

Bytes Bz2Codec::encode(std::span<const std::byte> in) const {
  if (level_ < 1 || level_ > 9)
    throw codec_error(ErrorKind::invalid_metadata, name(),
                      "level " + std::to_string(level_) + " is outside [1, 9]: cannot encode");
  bz_stream s{};
  if (BZ2_bzCompressInit(&s, static_cast<int>(level_), 0, 0) != BZ_OK)
    throw codec_error(ErrorKind::internal, name(), "libbzip2 cannot start compressing");
  // libbzip2's documented bound: 1% larger plus 600 bytes.
  Bytes out(in.size() + in.size() / 100 + 600);
  const std::byte* ip = in.data();
  std::size_t in_left = in.size();
  std::size_t produced = 0;
  int rc = BZ_RUN_OK;
  do {
    if (produced == out.size()) out.resize(out.size() * 2);
    const unsigned in_now = static_cast<unsigned>(std::min<std::size_t>(in_left, UINT_MAX));
    const unsigned out_now = static_cast<unsigned>(std::min<std::size_t>(out.size() - produced, UINT_MAX));
    s.next_in = const_cast<char*>(reinterpret_cast<const char*>(ip));
    s.avail_in = in_now;
    s.next_out = reinterpret_cast<char*>(out.data() + produced);
    s.avail_out = out_now;
    rc = BZ2_bzCompress(&s, in_left == in_now ? BZ_FINISH : BZ_RUN);
    ip += in_now - s.avail_in;
    in_left -= in_now - s.avail_in;
    produced += out_now - s.avail_out;
  } while (rc == BZ_RUN_OK || rc == BZ_FINISH_OK);
  BZ2_bzCompressEnd(&s);
  if (rc != BZ_STREAM_END) throw codec_error(ErrorKind::internal, name(), "libbzip2 failed to compress: " + bz_error(rc));
  out.resize(produced);
  return out;
}

}  // namespace zarrgpu::codec
