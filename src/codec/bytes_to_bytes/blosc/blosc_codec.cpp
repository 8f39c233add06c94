#include "codec/bytes_to_bytes/blosc/blosc_codec.hpp"

#include <blosc.h>

#include <cstdint>
#include <cstring>

#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

// Blosc 1 frame header (c-blosc README_HEADER.rst): version, versionlz,
// flags, typesize, then nbytes, blocksize, cbytes as 32-bit little-endian.
struct Header {
  std::uint8_t version, versionlz, flags, typesize;
  std::uint32_t nbytes, blocksize, cbytes;
};

Header read_header(std::span<const std::byte> in, std::string_view codec) {
  if (in.size() < BLOSC_MIN_HEADER_LENGTH)
    throw codec_error(ErrorKind::corrupt_data, codec,
                      "chunk has " + std::to_string(in.size()) + " bytes, less than a blosc header");
  Header h;
  h.version = static_cast<std::uint8_t>(in[0]);
  h.versionlz = static_cast<std::uint8_t>(in[1]);
  h.flags = static_cast<std::uint8_t>(in[2]);
  h.typesize = static_cast<std::uint8_t>(in[3]);
  std::memcpy(&h.nbytes, in.data() + 4, 4);
  std::memcpy(&h.blocksize, in.data() + 8, 4);
  std::memcpy(&h.cbytes, in.data() + 12, 4);
  return h;
}

// The compressor a frame names (flags bits 5..7) must be compiled into c-blosc.
void check_compressor(const Header& h, std::string_view codec) {
  const char* names[] = {"blosclz", "lz4", "snappy", "zlib", "zstd"};
  const int format = h.flags >> 5;
  if (h.flags & 0x2) return;  // BLOSC_MEMCPYED: stored, no compressor
  if (format > 4) throw codec_error(ErrorKind::corrupt_data, codec, "unknown compressor format " + std::to_string(format));
  if (blosc_compname_to_compcode(names[format]) < 0)
    throw codec_error(ErrorKind::unsupported, codec,
                      std::string("frame compressed with ") + names[format] + ", which this c-blosc lacks");
}

// Checks the header against the input and the expected size before c-blosc
// reads anything past it; returns the decoded size.
std::size_t validate(std::span<const std::byte> in, std::size_t expected_size, std::string_view codec) {
  const Header h = read_header(in, codec);
  if (h.version == 0 || h.version > BLOSC_VERSION_FORMAT)
    throw codec_error(ErrorKind::corrupt_data, codec, "unknown blosc format version " + std::to_string(h.version));
  if (h.cbytes > in.size() || h.cbytes < BLOSC_MIN_HEADER_LENGTH)
    throw codec_error(ErrorKind::corrupt_data, codec,
                      "header says " + std::to_string(h.cbytes) + " compressed bytes, the chunk has " +
                          std::to_string(in.size()));
  if (h.nbytes > BLOSC_MAX_BUFFERSIZE)
    throw codec_error(ErrorKind::corrupt_data, codec, "header says " + std::to_string(h.nbytes) + " bytes, over blosc's limit");
  if (expected_size && h.nbytes != expected_size)
    throw codec_error(ErrorKind::corrupt_data, codec,
                      "header says " + std::to_string(h.nbytes) + " decoded bytes, expected " + std::to_string(expected_size));
  if (h.nbytes && (h.blocksize == 0 || h.typesize == 0))
    throw codec_error(ErrorKind::corrupt_data, codec, "header has a zero block size or type size");
  if ((h.flags & 0x2) && h.cbytes < BLOSC_MIN_HEADER_LENGTH + std::size_t{h.nbytes})
    throw codec_error(ErrorKind::corrupt_data, codec, "stored frame shorter than its data");
  size_t nbytes = 0;
  if (blosc_cbuffer_validate(in.data(), h.cbytes, &nbytes) != 0 || nbytes != h.nbytes)
    throw codec_error(ErrorKind::corrupt_data, codec, "c-blosc rejects the frame header");
  check_compressor(h, codec);
  return h.nbytes;
}

BloscCodec::Shuffle parse_shuffle(const Configuration& config, int* as_written, bool* int_form) {
  const json& v = config.at("shuffle");
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    *int_form = false;
    if (s == "noshuffle") return BloscCodec::Shuffle::noshuffle;
    if (s == "shuffle") return BloscCodec::Shuffle::shuffle;
    if (s == "bitshuffle") return BloscCodec::Shuffle::bitshuffle;
    config.fail("shuffle must be noshuffle, shuffle or bitshuffle, got \"" + s + "\"");
  }
  *int_form = true;
  *as_written = static_cast<int>(config.integer("shuffle"));
  if (*as_written < -1 || *as_written > 2) config.fail("shuffle must be -1, 0, 1 or 2, got " + v.dump());
  return static_cast<BloscCodec::Shuffle>(*as_written);  // -1 is resolved by the caller
}

}  // namespace

BloscCodec::BloscCodec(const CodecSpec& spec, const ChunkRepresentation& input) : name_(spec.name) {
  Configuration config(spec);
  // Defaults when a member is left out: numcodecs.Blosc's under the numcodecs
  // name (lz4, byte shuffle), zarr-python's BloscCodec's under "blosc" (zstd,
  // bit shuffle for 1-byte items, else byte shuffle), so that a codec created
  // by name encodes, and is written back, as those libraries would.
  const bool numcodecs_name = name_ == "numcodecs.blosc";
  cname_ = config.string("cname", numcodecs_name ? "lz4" : "zstd");
  if (cname_ != "lz4" && cname_ != "lz4hc" && cname_ != "blosclz" && cname_ != "zstd" && cname_ != "zlib" &&
      cname_ != "snappy")
    config.fail("unknown cname \"" + cname_ + "\"");
  clevel_ = config.integer("clevel", 5);  // only encoding uses it (the frame header says the rest)
  typesize_given_ = config.has("typesize") && !config.at("typesize").is_null();
  const std::int64_t typesize = config.integer("typesize", static_cast<std::int64_t>(size_of(input.data_type)));
  if (typesize < 1 || typesize > BLOSC_MAX_TYPESIZE) config.fail("typesize " + std::to_string(typesize) + " is outside [1, 255]");
  typesize_ = static_cast<std::size_t>(typesize);
  if (config.has("shuffle")) {
    shuffle_ = parse_shuffle(config, &shuffle_as_written_, &numcodecs_shuffle_form_);
    // numcodecs AUTOSHUFFLE: bit-shuffle single bytes, byte-shuffle the rest.
    if (shuffle_as_written_ == -1) shuffle_ = typesize_ == 1 ? Shuffle::bitshuffle : Shuffle::shuffle;
  } else if (numcodecs_name) {
    numcodecs_shuffle_form_ = true;
    shuffle_as_written_ = 1;
    shuffle_ = Shuffle::shuffle;
  } else {
    shuffle_ = typesize_ == 1 ? Shuffle::bitshuffle : Shuffle::shuffle;
  }
  const std::int64_t blocksize = config.integer("blocksize", 0);
  if (blocksize < 0) config.fail("blocksize must not be negative");
  blocksize_ = static_cast<std::size_t>(blocksize);
}

CodecSpec BloscCodec::spec() const {
  CodecSpec s;
  s.name = name_;
  s.configuration = {{"cname", cname_}, {"clevel", clevel_}, {"blocksize", blocksize_}};
  if (numcodecs_shuffle_form_) {
    s.configuration["shuffle"] = shuffle_as_written_;
    if (typesize_given_) s.configuration["typesize"] = typesize_;
  } else {
    static constexpr const char* names[] = {"noshuffle", "shuffle", "bitshuffle"};
    s.configuration["shuffle"] = names[static_cast<int>(shuffle_)];
    s.configuration["typesize"] = typesize_;
  }
  return s;
}

void BloscCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out) const {
  const std::size_t nbytes = validate(in, out.size(), name());
  if (nbytes == 0) return;
  const int n = blosc_decompress_ctx(in.data(), out.data(), out.size(), 1);
  if (n < 0 || static_cast<std::size_t>(n) != nbytes)
    throw codec_error(ErrorKind::corrupt_data, name(), "c-blosc failed to decompress (" + std::to_string(n) + ")");
}

Bytes BloscCodec::decode(std::span<const std::byte> in, std::size_t expected_size) const {
  Bytes out(validate(in, expected_size, name()));
  decode_into(in, out.span());
  return out;
}

Bytes BloscCodec::decode_at_most(std::span<const std::byte> in, std::size_t max_size) const {
  // The header's decoded size is checked before anything is allocated.
  const std::size_t nbytes = validate(in, 0, name());
  if (nbytes > max_size)
    throw codec_error(ErrorKind::corrupt_data, name(),
                      "header says " + std::to_string(nbytes) + " decoded bytes, more than the " +
                          std::to_string(max_size) + " the chunk's metadata allows");
  return decode(in, nbytes);
}

std::size_t BloscCodec::max_encoded_size(std::size_t decoded_size) const {
  return saturating_add(decoded_size, BLOSC_MAX_OVERHEAD);
}

Bytes BloscCodec::encode(std::span<const std::byte> in) const {
  if (in.size() > BLOSC_MAX_BUFFERSIZE)
    throw codec_error(ErrorKind::unsupported, name(), "chunks over 2 GiB do not fit a blosc 1 frame");
  if (blosc_compname_to_compcode(cname_.c_str()) < 0)
    throw codec_error(ErrorKind::unsupported, name(), "this c-blosc has no " + cname_);
  Bytes out(in.size() + BLOSC_MAX_OVERHEAD);
  if (clevel_ < 0 || clevel_ > 9)
    throw codec_error(ErrorKind::invalid_metadata, name(),
                      "clevel " + std::to_string(clevel_) + " is outside [0, 9]: cannot encode");
  const int n = blosc_compress_ctx(static_cast<int>(clevel_), static_cast<int>(shuffle_), typesize_, in.size(), in.data(), out.data(),
                                   out.size(), cname_.c_str(), blocksize_, 1);
  if (n <= 0) throw codec_error(ErrorKind::internal, name(), "c-blosc failed to compress (" + std::to_string(n) + ")");
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace zarrgpu::codec
