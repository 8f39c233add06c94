#include "store/reusing_read.hpp"

#include <cstring>
#include <string>

namespace zarrgpu::store {

bool read_reusing(Store& store, const ReadRequest& request, Bytes& buffer) {
  if (auto* r = dynamic_cast<ReusingReader*>(&store)) return r->read_reusing(request, buffer);
  const ReadInto req{request, {}};
  auto res = store.read(std::span(&req, 1));
  if (res.empty() || !res[0].found) return false;
  buffer = std::move(res[0].data);
  return true;
}

std::optional<std::uint64_t> read_whole_into(Store& store, std::string_view key, std::span<std::byte> dest) {
  if (auto* r = dynamic_cast<ReusingReader*>(&store)) return r->read_whole_into(key, dest);
  const ReadInto req{{std::string(key), ByteRange::all()}, {}};
  auto res = store.read(std::span(&req, 1));
  if (res.empty() || !res[0].found) return std::nullopt;
  const Bytes& data = res[0].data;
  if (data.size() == dest.size() && !data.empty()) std::memcpy(dest.data(), data.data(), data.size());
  return data.size();
}

}  // namespace zarrgpu::store
