// Per-call outcome of the LZ4 block decoder, and the host/device annotation
// its format logic is compiled with.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/bytes_to_bytes/host_device.hpp"

namespace zarrgpu::lz4 {

// Values are stable: they are written to device memory as plain integers.
enum class Status : uint32_t {
  ok = 0,
  truncated_input = 1,        // the input ends inside a sequence
  zero_offset = 2,            // a match offset of 0 ("Additional notes": invalid)
  offset_before_output = 3,   // a match reaches before the start of the output
  output_too_small = 4,       // decoded data does not fit the caller's capacity
  end_conditions = 5,         // "End of block restrictions" 2 or 3 broken
  size_mismatch = 6,          // decoded size disagrees with the size the framing declares
  invalid_argument = 7,       // null pointers with a non-zero size
};

inline constexpr const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::truncated_input: return "truncated_input";
    case Status::zero_offset: return "zero_offset";
    case Status::offset_before_output: return "offset_before_output";
    case Status::output_too_small: return "output_too_small";
    case Status::end_conditions: return "end_conditions";
    case Status::size_mismatch: return "size_mismatch";
    case Status::invalid_argument: return "invalid_argument";
  }
  return "unknown_status";
}

}  // namespace zarrgpu::lz4
