// Reading a codec's `configuration` object: every failure is an
// Error(invalid_metadata) that names the codec and the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "zarrgpu/error.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::codec {

// An Error whose context names `codec`.
Error codec_error(ErrorKind kind, std::string_view codec, std::string cause);
// A context naming only `codec` (for Error::with_context).
ErrorContext codec_context(std::string_view codec);

class Configuration {
 public:
  explicit Configuration(const CodecSpec& spec);

  bool has(std::string_view key) const;
  // The raw value; throws when absent.
  const json& at(std::string_view key) const;
  std::int64_t integer(std::string_view key) const;
  std::int64_t integer(std::string_view key, std::int64_t fallback) const;
  bool boolean(std::string_view key, bool fallback) const;
  std::string string(std::string_view key) const;
  std::string string(std::string_view key, std::string_view fallback) const;
  [[noreturn]] void fail(std::string cause) const;

 private:
  const CodecSpec& spec_;
};

}  // namespace zarrgpu::codec
