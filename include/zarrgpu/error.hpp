// Errors carry context: which array, which chunk key or metadata document, which
// codec, what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace zarrgpu {

// Stable categories a script (or the CLI's exit code) can rely on.
enum class ErrorKind {
  invalid_argument = 2,   // bad selection, bad option, out-of-bounds selection
  not_found = 3,          // missing metadata / store / path
  invalid_metadata = 4,   // bad JSON, wrong fields, inconsistent metadata
  unsupported = 5,        // codec, data type or extension we do not implement
  corrupt_data = 6,       // a chunk that does not decode, fails a checksum, wrong size
  io = 7,                 // the store failed to read or write
  device = 8,             // CUDA / GPU failures, out of GPU memory
  internal = 9,
  // An allocation that the metadata or a selection asks for (a chunk's decoded
  // bytes, a read's output) exceeds the memory limit (zarrgpu/memory_limit.hpp)
  // or failed for want of memory. TensorStore's and absl's RESOURCE_EXHAUSTED.
  resource_exhausted = 10,
};

const char* to_string(ErrorKind kind) noexcept;

// Where an error happened. Empty fields are omitted from the message.
struct ErrorContext {
  std::string array;      // the array's path inside the store ("" = root)
  std::string chunk_key;  // the store key of the chunk
  std::string codec;      // the codec's name
  std::string store;      // the store's description (e.g. "file:///data/era5.zarr")
  // The store key of a metadata document ("a/zarr.json", ".zmetadata"); the
  // initializer keeps four-field initializations {array, chunk, codec, store} quiet.
  std::string document{};
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string cause, ErrorContext context = {});

  ErrorKind kind() const noexcept { return kind_; }
  const std::string& cause() const noexcept { return cause_; }
  const ErrorContext& context() const noexcept { return context_; }

  // A copy of this error with empty context fields filled from `outer`
  // (inner layers know the codec, outer ones the array and chunk key).
  Error with_context(const ErrorContext& outer) const;

 private:
  ErrorKind kind_;
  std::string cause_;
  ErrorContext context_;
};

}  // namespace zarrgpu
