// The memory limit on allocations that input sizes: a chunk's decoded bytes,
// a shard's, a read's output. Their sizes come from metadata and selections,
// which a hostile or careless store can make as large as 2^63 bytes; one the
// process cannot hold is refused with Error(resource_exhausted) before it is
// allocated (a sanitizer build aborts on a failed allocation instead of
// throwing std::bad_alloc, and Linux may kill an overcommitted process instead
// of failing it).
#pragma once

#include <cstdint>
#include <string>

#include "zarrgpu/error.hpp"

namespace zarrgpu {

// The memory of the machine as this process can use it: the smallest of RAM
// plus swap, the process's RLIMIT_AS and RLIMIT_DATA, and its cgroup's
// memory.max (cgroup v2). Measured once per process.
std::uint64_t machine_memory_limit() noexcept;

// The limit in force: Config::memory_limit (ZARRGPU_MEMORY_LIMIT) where it is
// set (non-zero) and lower, else machine_memory_limit().
std::uint64_t memory_limit();

// Throws Error(resource_exhausted, context) when `bytes` exceed memory_limit():
// "<what> needs N bytes, more than the memory limit of M bytes (...)", or, under
// a finite RLIMIT_AS or RLIMIT_DATA, exceed what is left of it once what the
// process has mapped is counted (/proc/self/statm), which the kernel compares
// with the limit: "... more than the K bytes left of the memory limit ...".
void check_allocation(std::uint64_t bytes, const std::string& what, const ErrorContext& context = {});

}  // namespace zarrgpu
