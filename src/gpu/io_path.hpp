// Which path brings a chunk's bytes to the GPU, chosen once per read and
// reported in the read's statistics.
//
//   posix       parallel pread into the pinned staging ring, one host-to-device
//               copy per batch (the default where GDS is only emulated)
//   gds         cuFile with nvidia-fs: storage DMA straight into GPU memory
//   gds-compat  cuFile in compatibility mode (POSIX inside cuFile)
//
// Config::io (ZARRGPU_IO=auto|posix|gds|gds-compat) forces one; auto takes gds when true
// GDS is present and the store is a local directory, posix otherwise
// (compatibility mode reads through cuFile's small bounce buffers and is
// slower than our ring). Forcing gds on a machine without nvidia-fs runs
// gds-compat and says so.
#pragma once

#include "zarrgpu/config.hpp"

namespace zarrgpu::gpu {

enum class IoPath { posix, gds, gds_compat };
using IoRequest = IoMode;

const char* to_string(IoPath p) noexcept;
// The request in force: config().io.
IoRequest io_request();

// The path a request resolves to: `cufile_ok` whether cuFile opened,
// `true_gds` whether nvidia-fs is there, `local` whether the store is a local directory.
IoPath resolve_io_path(IoRequest request, bool cufile_ok, bool true_gds, bool local) noexcept;

}  // namespace zarrgpu::gpu
