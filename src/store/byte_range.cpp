#include "store/byte_range.hpp"

#include "zarrgpu/error.hpp"

namespace zarrgpu::store {

ResolvedRange resolve_range(const ByteRange& r, std::uint64_t size, std::string_view key,
                            const std::string& store) {
  const ErrorContext ctx{"", std::string(key), "", store};
  if (r.suffix_length > 0) {
    if (r.suffix_length > size) {
      throw Error(ErrorKind::io, "suffix of " + std::to_string(r.suffix_length) + " bytes requested from '" +
                                     std::string(key) + "' of " + std::to_string(size) + " bytes", ctx);
    }
    return {size - r.suffix_length, r.suffix_length};
  }
  if (r.offset > size) {
    throw Error(ErrorKind::io, "offset " + std::to_string(r.offset) + " is past the end of '" + std::string(key) +
                                   "' (" + std::to_string(size) + " bytes)", ctx);
  }
  if (r.length == ByteRange::npos) return {r.offset, size - r.offset};
  if (r.length > size - r.offset) {
    throw Error(ErrorKind::io, "range [" + std::to_string(r.offset) + ", +" + std::to_string(r.length) +
                                   ") runs past the end of '" + std::string(key) + "' (" + std::to_string(size) +
                                   " bytes)", ctx);
  }
  return {r.offset, r.length};
}

void check_key(std::string_view key, const std::string& store) {
  auto bad = [&](const char* why) {
    return Error(ErrorKind::invalid_argument, "bad store key '" + std::string(key) + "': " + why,
                 {"", std::string(key), "", store});
  };
  if (key.empty()) throw bad("empty");
  if (key.front() == '/') throw bad("absolute");
  std::size_t pos = 0;
  while (true) {
    const std::size_t slash = key.find('/', pos);
    const std::string_view part = key.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos);
    if (part.empty() || part == "." || part == "..") throw bad("empty, '.' or '..' component");
    if (slash == std::string_view::npos) break;
    pos = slash + 1;
  }
}

}  // namespace zarrgpu::store
