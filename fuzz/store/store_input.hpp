// The store fuzzer's harness, shared by the libFuzzer target (store_fuzzer.cpp)
// and the ctest replay of fuzz/store/regressions (tests/fuzz_store/).
//
// An input is a whole small store, serialised as entries `key\0`, a 4-byte
// little-endian length, then the value (store_archive.py writes and reads
// them). The harness loads it into a memory store and opens and reads every
// node the way the CLI and Python do (tree, arrays, whole and partial reads).
// A documented zarrgpu::Error is the expected outcome for hostile data; an
// Error of kind `internal`, any other exception, or a crash is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "zarrgpu/store.hpp"

namespace zarrgpu::fuzz {

// The store an input describes; entries that do not parse end the archive.
std::shared_ptr<Store> load_store_archive(const std::uint8_t* data, std::size_t size);

// Runs the input; aborts (a finding) on anything but success or a documented Error.
void run_store_input(const std::uint8_t* data, std::size_t size);

}  // namespace zarrgpu::fuzz
