#include "codec/bytes_to_bytes/zstd/zstd_codec.hpp"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <memory>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

// One context of each kind per thread: contexts hold ~100s of KB of tables
// that are worth reusing, and a context must not be shared between threads.
struct DContextDeleter { void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); } };
struct CContextDeleter { void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); } };

ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DContextDeleter> ctx(ZSTD_createDCtx());
  if (!ctx) throw std::bad_alloc();
  return ctx.get();
}

ZSTD_CCtx* thread_cctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CContextDeleter> ctx(ZSTD_createCCtx());
  if (!ctx) throw std::bad_alloc();
  return ctx.get();
}

}  // namespace

ZstdCodec::ZstdCodec(const CodecSpec& spec, const ChunkRepresentation&) : name_(spec.name) {
  Configuration config(spec);
  // Any level reads (decoding does not use it); encoding clamps it to
  // libzstd's range, as libzstd itself does for numcodecs.Zstd.
  level_ = config.integer("level", 0);
  checksum_ = config.boolean("checksum", false);
}

CodecSpec ZstdCodec::spec() const {
  CodecSpec s;
  s.name = name_;
  s.configuration = {{"level", level_}, {"checksum", checksum_}};
  return s;
}

void ZstdCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  ZSTD_DCtx* ctx = thread_dctx();
  ZSTD_DCtx_reset(ctx, ZSTD_reset_session_only);
  // Decodes every frame in `in` (RFC 8878 §3: frames may be concatenated);
  // libzstd never writes past out.size().
  const std::size_t n = ZSTD_decompressDCtx(ctx, out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(n)) {
    if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
      throw codec_error(ErrorKind::corrupt_data, name(),
                        "decompresses to more than the expected " + std::to_string(out.size()) + " bytes");
    throw codec_error(ErrorKind::corrupt_data, name(), std::string("libzstd: ") + ZSTD_getErrorName(n));
  }
  if (n != out.size())
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "decompressed " + std::to_string(n) + " bytes, expected " + std::to_string(out.size()));
}

Bytes ZstdCodec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  if (expected_size) {
    Bytes out(expected_size);
    decode_into(in, out.span());
    return out;
  }
  return decode_at_most(in, SIZE_MAX);
}

std::size_t ZstdCodec::max_encoded_size(std::size_t decoded_size) const {
  // ZSTD_compressBound, plus room for frames of other writers (a skippable
  // frame, a dictionary id, several frames).
  const std::size_t bound = ZSTD_compressBound(decoded_size);
  if (ZSTD_isError(bound)) return SIZE_MAX;
  return saturating_add(bound, std::size_t(1) << 16);
}

Bytes ZstdCodec::decode_at_most(std::span<const std::byte> in, std::size_t max_size) const {
  // Unknown size: stream into a growing buffer, so that a lying content-size
  // field cannot make us allocate more than the data really decompresses to,
  // and never past `max_size` (plus one byte, to see that there is more).
  ZSTD_DCtx* ctx = thread_dctx();
  ZSTD_DCtx_reset(ctx, ZSTD_reset_session_only);
  const unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
  const std::size_t cap = max_size == SIZE_MAX ? SIZE_MAX : max_size + 1;
  std::size_t capacity = std::max<std::size_t>(in.size() * 4, 1 << 16);
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR)
    capacity = static_cast<std::size_t>(std::min<unsigned long long>(declared, std::size_t{1} << 30)) + 1;
  capacity = std::min(capacity, cap);
  Bytes out(capacity);
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  ZSTD_outBuffer output{out.data(), out.size(), 0};
  for (;;) {
    if (output.pos == output.size) {
      if (out.size() >= cap)
        throw codec_error(ErrorKind::corrupt_data, name(),
                          "decompresses to more than the " + std::to_string(max_size) +
                              " bytes the chunk's metadata allows");
      out.resize(std::min(out.size() > cap / 2 ? cap : out.size() * 2, cap));
      output.dst = out.data();
      output.size = out.size();
    }
    const std::size_t hint = ZSTD_decompressStream(ctx, &output, &input);
    if (ZSTD_isError(hint))
      throw codec_error(ErrorKind::corrupt_data, name(), std::string("libzstd: ") + ZSTD_getErrorName(hint));
    if (input.pos == input.size) {
      if (hint == 0) break;  // the last frame is complete
      // Room left to flush into, yet the frame wants more input: truncated.
      if (output.pos < output.size) throw codec_error(ErrorKind::corrupt_data, name(), "truncated frame");
    }
  }
  out.resize(output.pos);
  return out;
}

Bytes ZstdCodec::encode(std::span<const std::byte> in) const {
  ZSTD_CCtx* ctx = thread_cctx();
  ZSTD_CCtx_reset(ctx, ZSTD_reset_session_and_parameters);
  const auto level = static_cast<int>(std::clamp<std::int64_t>(level_, ZSTD_minCLevel(), ZSTD_maxCLevel()));
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_checksumFlag, checksum_ ? 1 : 0);
  Bytes out(ZSTD_compressBound(in.size()));
  const std::size_t n = ZSTD_compress2(ctx, out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(n))
    throw codec_error(ErrorKind::internal, name(), std::string("libzstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

}  // namespace zarrgpu::codec
