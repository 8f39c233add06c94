// Store conveniences, the engine's reads into caller memory and hints for
// any store (store/reusing_read.hpp, store/readahead_window.hpp), and the URL dispatch.
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "store/http_store.hpp"
#include "store/s3_store.hpp"
#include "store/store_options.hpp"
#include "store/readahead_window.hpp"
#include "store/reusing_read.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu {

std::optional<Bytes> Store::get(std::string_view key, ByteRange range) {
  ReadInto req{{std::string(key), range}, {}};
  auto results = read(std::span<const ReadInto>(&req, 1));
  if (!results.at(0).found) return std::nullopt;
  return std::move(results[0].data);
}

std::string Store::kind() const {
  const std::string url = describe();
  const auto colon = url.find("://");
  return colon == std::string::npos ? url : url.substr(0, colon);
}

namespace store {

bool read_reusing(Store& store, const ReadRequest& request, Bytes& buffer) {
  if (auto* reader = dynamic_cast<ReusingReader*>(&store)) return reader->read_reusing(request, buffer);
  const ReadInto req{request, {}};
  auto res = store.read(std::span(&req, 1));
  if (res.empty() || !res[0].found) return false;
  buffer = std::move(res[0].data);
  return true;
}

std::optional<std::uint64_t> read_whole_into(Store& store, std::string_view key, std::span<std::byte> dest) {
  if (auto* reader = dynamic_cast<ReusingReader*>(&store)) return reader->read_whole_into(key, dest);
  const ReadInto req{{std::string(key), ByteRange::all()}, {}};
  auto res = store.read(std::span(&req, 1));
  if (res.empty() || !res[0].found) return std::nullopt;
  const Bytes& data = res[0].data;
  if (data.size() == dest.size() && !data.empty()) std::memcpy(dest.data(), data.data(), data.size());
  return data.size();
}

bool hint(Store& store, std::span<const ReadRequest> requests) noexcept {
  auto* prefetcher = dynamic_cast<Prefetcher*>(&store);
  return prefetcher && prefetcher->hint(requests);
}

}  // namespace store

std::vector<std::string> Store::list_dir(std::string_view prefix) {
  std::string p(prefix);
  while (!p.empty() && p.back() == '/') p.pop_back();
  const std::string base = p.empty() ? "" : p + "/";
  std::set<std::string> names;
  for (const auto& key : list(p)) {
    if (!key.starts_with(base) || key.size() == base.size()) continue;
    const std::string_view rel = std::string_view(key).substr(base.size());
    const auto slash = rel.find('/');
    names.insert(slash == std::string_view::npos ? std::string(rel) : std::string(rel.substr(0, slash + 1)));
  }
  return {names.begin(), names.end()};
}

namespace {
// "memory://name" gives the same store to every caller in the process (so a
// tool and a test can share one); plain "memory://" is always a fresh one.
std::mutex g_named_mutex;
std::map<std::string, std::shared_ptr<Store>, std::less<>> g_named_memory_stores;
}  // namespace

namespace {
std::mutex g_options_mutex;
std::map<std::string, StoreOptions, std::less<>> g_store_options;
}  // namespace

void set_store_options(const std::string& url, StoreOptions options) {
  std::string key = url;
  while (key.ends_with('/')) key.pop_back();
  std::lock_guard lk(g_options_mutex);
  g_store_options[key] = std::move(options);
}

std::shared_ptr<Store> open_store(const std::string& url, bool create) {
  StoreOptions options;
  {
    std::string u = url;
    while (u.ends_with('/')) u.pop_back();
    std::lock_guard lk(g_options_mutex);
    // The longest URL set that is `u` or a parent of it.
    std::size_t best = 0;
    for (const auto& [key, value] : g_store_options) {
      if (key.size() >= best && (u == key || (u.starts_with(key) && u[key.size()] == '/'))) {
        best = key.size();
        options = value;
      }
    }
  }
  return open_store(url, create, options);
}

std::shared_ptr<Store> open_store(const std::string& url, bool create, const StoreOptions& options) {
  constexpr std::string_view file = "file://", memory = "memory://";
  std::string_view u = url;
  if (u.starts_with(memory)) {
    const std::string name(u.substr(memory.size()));
    if (name.empty()) return make_memory_store();
    std::lock_guard lk(g_named_mutex);
    auto& s = g_named_memory_stores[name];
    if (!s) s = make_memory_store();
    return s;
  }
  if (u.starts_with(file)) return open_local_store(std::string(u.substr(file.size())), create);
  if (u.starts_with("http://") || u.starts_with("https://")) {
    if (create) {
      throw Error(ErrorKind::unsupported, "HTTP stores are read-only", {"", "", "", store::redact_url(url)});
    }
    return store::open_http_store(url);
  }
  if (u.starts_with("s3://")) {
    if (create) throw Error(ErrorKind::unsupported, "S3 stores are read-only", {"", "", "", store::redact_url(url)});
    return store::open_s3_store(url, options);
  }
  if (u.starts_with("gs://")) {
    if (create) throw Error(ErrorKind::unsupported, "GCS stores are read-only", {"", "", "", store::redact_url(url)});
    return store::open_gcs_store(url, options);
  }
  if (const auto p = u.find("://"); p != std::string_view::npos) {
    throw Error(ErrorKind::unsupported, "no store for URL scheme '" + std::string(u.substr(0, p)) + "'",
                {"", "", "", store::redact_url(url)});
  }
  return open_local_store(url, create);
}

}  // namespace zarrgpu
