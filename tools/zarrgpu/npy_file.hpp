// NumPy .npy files (format version 1.0): what `zarrgpu cat` writes.
//
// The header is byte for byte what np.save writes: magic, version 1.0, a
// Python dict literal with 'descr', 'fortran_order' and 'shape', padded with
// spaces and a newline so the data starts at a multiple of 64 bytes
// (numpy/lib/format.py, ARRAY_ALIGN and GROWTH_AXIS_MAX_DIGITS).
// Data is C order, little-endian. bfloat16, which NumPy has no type for, is
// written as descr '|V2' (two raw bytes per element, the bfloat16 bit pattern,
// little-endian): np.load gives a void array; `.view('<u2')` gives the bits,
// `.view(ml_dtypes.bfloat16)` the values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zarrgpu/data_type.hpp"

namespace zarrgpu::cli {

// The 'descr' NumPy reads back: "<f4", "|b1", "<c8", and "|V2" for bfloat16.
std::string npy_descr(DataType t);

// The complete header (magic through the newline); its size is a multiple of 64.
std::string npy_header(DataType t, std::span<const std::uint64_t> shape);

// Writes header + data to `path` atomically (a temporary file in the same
// directory, then rename), so a reader never sees a partial file. Throws
// Error(io) naming the path.
void write_npy_atomic(const std::string& path, DataType t, std::span<const std::uint64_t> shape,
                      std::span<const std::byte> data);

// Writes header + data to an open descriptor (standard output for `--out -`).
// Throws Error(io) naming `what` when a write fails (a closed pipe included).
void write_npy_fd(int fd, const std::string& what, DataType t, std::span<const std::uint64_t> shape,
                  std::span<const std::byte> data);

}  // namespace zarrgpu::cli
