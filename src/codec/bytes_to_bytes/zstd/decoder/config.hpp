// Shared definitions of the Zstandard decoder (RFC 8878): the host/device
// annotation, fixed format limits and the per-chunk status.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/bytes_to_bytes/host_device.hpp"

namespace zarrgpu::zstd {

// RFC 8878 §3.1.1: frame magic numbers.
inline constexpr uint32_t kFrameMagic = 0xFD2FB528u;
inline constexpr uint32_t kSkippableMagicMask = 0xFFFFFFF0u;
inline constexpr uint32_t kSkippableMagic = 0x184D2A50u;

// RFC 8878 §3.1.1.2: Block_Maximum_Size is at most 128 KiB.
inline constexpr uint32_t kBlockSizeMax = 128u * 1024u;
// Largest Window_Log a decoder is asked to honour (libzstd's 64-bit ZSTD_WINDOWLOG_MAX).
inline constexpr uint32_t kWindowLogMax = 31;

// RFC 8878 §4.2.1: Huffman codes are at most 11 bits long.
inline constexpr uint32_t kHuffmanLogMax = 11;

// RFC 8878 §3.1.1.3.2.1: largest symbol and accuracy log of each sequence code.
inline constexpr uint32_t kLiteralsLengthMaxSymbol = 35;
inline constexpr uint32_t kMatchLengthMaxSymbol = 52;
inline constexpr uint32_t kOffsetMaxSymbol = 31;
inline constexpr uint32_t kLiteralsLengthLogMax = 9;
inline constexpr uint32_t kMatchLengthLogMax = 9;
inline constexpr uint32_t kOffsetLogMax = 8;

// Per-chunk outcome. Values are stable: they are written to device memory and
// read by callers that never include this header's enum (plain integers).
enum class Status : uint32_t {
  ok = 0,
  truncated_input = 1,         // the input ends inside a frame
  unknown_frame = 2,           // magic number is neither Zstandard nor skippable
  reserved_bit_set = 3,        // RFC 8878 §3.1.1.1.1 reserved field is non-zero
  window_too_large = 4,        // Window_Log beyond kWindowLogMax
  dictionary_required = 5,     // Dictionary_ID is non-zero: we do not decode with dictionaries
  corrupt_block = 6,           // block header or block size is invalid
  corrupt_literals = 7,        // literals section header or Huffman streams
  corrupt_huffman_table = 8,   // Huffman tree description
  corrupt_fse_table = 9,       // FSE table description or repeat without a previous table
  corrupt_sequences = 10,      // sequences section or its bitstream
  offset_out_of_range = 11,    // a match reaches before the frame start or beyond the window
  output_too_small = 12,       // decoded data does not fit the caller's capacity
  content_size_mismatch = 13,  // Frame_Content_Size disagrees with the decoded size
  checksum_mismatch = 14,      // RFC 8878 §3.1.1 Content_Checksum
  invalid_argument = 15,       // null pointers with a non-zero size, and the like
};

inline constexpr const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::truncated_input: return "truncated_input";
    case Status::unknown_frame: return "unknown_frame";
    case Status::reserved_bit_set: return "reserved_bit_set";
    case Status::window_too_large: return "window_too_large";
    case Status::dictionary_required: return "dictionary_required";
    case Status::corrupt_block: return "corrupt_block";
    case Status::corrupt_literals: return "corrupt_literals";
    case Status::corrupt_huffman_table: return "corrupt_huffman_table";
    case Status::corrupt_fse_table: return "corrupt_fse_table";
    case Status::corrupt_sequences: return "corrupt_sequences";
    case Status::offset_out_of_range: return "offset_out_of_range";
    case Status::output_too_small: return "output_too_small";
    case Status::content_size_mismatch: return "content_size_mismatch";
    case Status::checksum_mismatch: return "checksum_mismatch";
    case Status::invalid_argument: return "invalid_argument";
  }
  return "unknown_status";
}

// Index of the highest set bit; v must be non-zero.
ZARRGPU_HD_INLINE uint32_t highbit32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return 31u - static_cast<uint32_t>(__clz(v));
#else
  return 31u - static_cast<uint32_t>(__builtin_clz(v));
#endif
}

// Index of the lowest set bit; v must be non-zero.
ZARRGPU_HD_INLINE uint32_t lowbit32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__ffs(static_cast<int>(v))) - 1u;
#else
  return static_cast<uint32_t>(__builtin_ctz(v));
#endif
}

ZARRGPU_HD_INLINE uint32_t popcount32(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__popc(v));
#else
  return static_cast<uint32_t>(__builtin_popcount(v));
#endif
}

// *word |= bits, atomically: groups of any kind (warps, host threads) may
// set bits of one word at once.
ZARRGPU_HD_INLINE void atomic_or32(uint32_t* word, uint32_t bits) {
#if defined(__CUDA_ARCH__)
  atomicOr(word, bits);
#else
  __atomic_fetch_or(word, bits, __ATOMIC_RELAXED);
#endif
}

ZARRGPU_HD_INLINE uint32_t load_le16(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8);
}
ZARRGPU_HD_INLINE uint32_t load_le24(const uint8_t* p) {
  return load_le16(p) | (static_cast<uint32_t>(p[2]) << 16);
}
ZARRGPU_HD_INLINE uint32_t load_le32(const uint8_t* p) {
  return load_le16(p) | (load_le16(p + 2) << 16);
}
ZARRGPU_HD_INLINE uint64_t load_le64_bytes(const uint8_t* p) {
  return static_cast<uint64_t>(load_le32(p)) | (static_cast<uint64_t>(load_le32(p + 4)) << 32);
}

}  // namespace zarrgpu::zstd
