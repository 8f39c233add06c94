// libFuzzer target: mutated small stores (zarr.json, .zarray, .zattrs,
// .zmetadata and chunk files of format 2, 3 and sharded arrays) opened and
// read through the library. fuzz/store/run.sh builds and runs it.
#include <cstddef>
#include <cstdint>

#include "store_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zarrgpu::fuzz::run_store_input(data, size);
  return 0;
}
