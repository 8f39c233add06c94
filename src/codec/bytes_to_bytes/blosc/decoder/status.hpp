// Per-chunk outcome of the Blosc 1 decoder.
#pragma once

#include "codec/bytes_to_bytes/lz4/decoder/status.hpp"

namespace zarrgpu::blosc {

// Values are stable: they are written to device memory as plain integers.
enum class Status : uint32_t {
  ok = 0,
  truncated_input = 1,         // the chunk is shorter than its header or its cbytes
  unsupported_version = 2,     // format version other than 2, or an unknown codec version
  reserved_flag = 3,           // flags bit 3 is set ("Reserved, must be zero")
  unsupported_codec = 4,       // snappy, or a codec number Blosc 1 does not define
  corrupt_header = 5,          // typesize or blocksize 0, cbytes inconsistent, sizes over the limits
  output_too_small = 6,        // nbytes or blocksize beyond the caller's capacity
  corrupt_block_start = 7,     // a bstarts entry outside the chunk
  corrupt_stream_size = 8,     // a stream's compressed size runs past the chunk
  corrupt_stream = 9,          // the inner codec rejects a stream
  stream_size_mismatch = 10,   // a stream decodes to another size than its split
  host_only_codec = 11,        // a stream of a codec this build decodes only on the host
  invalid_argument = 12,       // null pointers with a non-zero size
};

inline constexpr const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::truncated_input: return "truncated_input";
    case Status::unsupported_version: return "unsupported_version";
    case Status::reserved_flag: return "reserved_flag";
    case Status::unsupported_codec: return "unsupported_codec";
    case Status::corrupt_header: return "corrupt_header";
    case Status::output_too_small: return "output_too_small";
    case Status::corrupt_block_start: return "corrupt_block_start";
    case Status::corrupt_stream_size: return "corrupt_stream_size";
    case Status::corrupt_stream: return "corrupt_stream";
    case Status::stream_size_mismatch: return "stream_size_mismatch";
    case Status::host_only_codec: return "host_only_codec";
    case Status::invalid_argument: return "invalid_argument";
  }
  return "unknown_status";
}

ZARRGPU_HD_INLINE uint32_t load_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

}  // namespace zarrgpu::blosc
