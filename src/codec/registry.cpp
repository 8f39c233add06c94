// make_codec: one explicit dispatch over the codec names of zarr.json.
#include <string>

#include "codec/array_to_array/numcodecs/astype_codec.hpp"
#include "codec/array_to_array/numcodecs/bitround_codec.hpp"
#include "codec/array_to_array/numcodecs/delta_codec.hpp"
#include "codec/array_to_array/numcodecs/fixed_scale_offset_codec.hpp"
#include "codec/array_to_array/numcodecs/packbits_codec.hpp"
#include "codec/array_to_array/numcodecs/quantize_codec.hpp"
#include "codec/array_to_array/transpose/transpose_codec.hpp"
#include "codec/array_to_bytes/bytes/bytes_codec.hpp"
#include "codec/array_to_bytes/sharding_indexed/sharding_indexed_codec.hpp"
#include "codec/array_to_bytes/vlen/vlen_codec.hpp"
#include "codec/bytes_to_bytes/blosc/blosc_codec.hpp"
#include "codec/bytes_to_bytes/gzip/gzip_codec.hpp"
#include "codec/bytes_to_bytes/numcodecs/bz2_codec.hpp"
#include "codec/bytes_to_bytes/numcodecs/checksum32_codec.hpp"
#include "codec/bytes_to_bytes/numcodecs/lz4_codec.hpp"
#include "codec/bytes_to_bytes/numcodecs/lzma_codec.hpp"
#include "codec/bytes_to_bytes/numcodecs/shuffle_codec.hpp"
#include "codec/bytes_to_bytes/numcodecs/zlib_codec.hpp"
#include "codec/bytes_to_bytes/zstd/zstd_codec.hpp"
#include "codec/codec.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

std::unique_ptr<Codec> make_codec(const CodecSpec& spec, const ChunkRepresentation& input) {
  const std::string& n = spec.name;
  // Zarr v3 core codecs.
  if (n == "bytes") return std::make_unique<BytesCodec>(spec, input);
  if (n == "transpose") return std::make_unique<TransposeCodec>(spec, input);
  if (n == "sharding_indexed") return std::make_unique<ShardingIndexedCodec>(spec, input);
  if (n == "zstd" || n == "numcodecs.zstd") return std::make_unique<ZstdCodec>(spec, input);
  if (n == "gzip" || n == "numcodecs.gzip") return std::make_unique<GzipCodec>(spec, input);
  if (n == "blosc" || n == "numcodecs.blosc") return std::make_unique<BloscCodec>(spec, input);
  if (n == "crc32c") return std::make_unique<Checksum32Codec>(spec, input);
  // zarr-python 3's array -> bytes codecs of its string and bytes data types.
  if (n == "vlen-utf8" || n == "vlen-bytes") return std::make_unique<VariableLengthCodec>(spec, input);
  // numcodecs, as zarr-python 3 names them (and as format 2 metadata maps onto).
  if (n == "numcodecs.delta") return std::make_unique<DeltaCodec>(spec, input);
  if (n == "numcodecs.fixedscaleoffset") return std::make_unique<FixedScaleOffsetCodec>(spec, input);
  if (n == "numcodecs.astype") return std::make_unique<AsTypeCodec>(spec, input);
  if (n == "numcodecs.quantize") return std::make_unique<QuantizeCodec>(spec, input);
  if (n == "numcodecs.bitround") return std::make_unique<BitRoundCodec>(spec, input);
  if (n == "numcodecs.packbits") return std::make_unique<PackBitsCodec>(spec, input);
  if (n == "numcodecs.shuffle") return std::make_unique<ShuffleCodec>(spec, input);
  if (n == "numcodecs.zlib") return std::make_unique<ZlibCodec>(spec, input);
  if (n == "numcodecs.lz4") return std::make_unique<Lz4Codec>(spec, input);
  if (n == "numcodecs.bz2") return std::make_unique<Bz2Codec>(spec, input);
  if (n == "numcodecs.lzma") return std::make_unique<LzmaCodec>(spec, input);
  if (n == "numcodecs.crc32" || n == "numcodecs.adler32" || n == "numcodecs.crc32c" || n == "numcodecs.fletcher32")
    return std::make_unique<Checksum32Codec>(spec, input);
  throw codec_error(ErrorKind::unsupported, n, "codec '" + n + "' is not supported");
}

}  // namespace zarrgpu::codec
