// A read-only store over HTTP(S): key k of the store at https://host/data.zarr
// is https://host/data.zarr/k. Each read() batch runs as parallel range GETs
// (HttpClient), nearby ranges of one key merged into one request
// (range_coalescing.hpp). A 404 is a missing key (a chunk holding only the
// fill value). HTTP has no listing: list() is Error(unsupported), so a group
// opens through its consolidated metadata or an array by its path.
//
// open_value() pins one version of a value by its ETag (If-Match on every
// later range read): a value replaced meanwhile is Error(io), never a mix.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "store/http_client.hpp"
#include "store/reusing_read.hpp"
#include "store/stored_value.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

class HttpStore : public Store, public ValueOpener, public WholeValueReader {
 public:
  // `base_url` without a trailing '/'; `describe` names the store in errors
  // ("" : the URL, redacted); `configure` and `headers` as for HttpClient.
  HttpStore(std::string base_url, HttpSettings settings, std::string describe = "",
            std::function<void(void*)> configure = {}, std::vector<std::string> headers = {});

  std::vector<ReadResult> read(std::span<const ReadInto> requests) override;
  void write(std::string_view key, std::span<const std::byte> value) override;
  void erase(std::string_view key) override;
  bool exists(std::string_view key) override;
  std::vector<std::string> list(std::string_view prefix) override;
  std::optional<std::uint64_t> size(std::string_view key) override;
  std::string describe() const override;
  std::string kind() const override { return "http"; }  // https too
  StoreActivity activity() const noexcept override { return client_.activity(); }
  std::unique_ptr<StoredValue> open_value(std::string_view key) override;
  // One range GET of bytes 0..limit: the size comes from Content-Range.
  std::optional<std::uint64_t> read_whole_bounded(std::string_view key, std::uint64_t limit, Bytes& buffer) override;

  // Abandons the reads in flight now (they throw Error(io) "cancelled").
  void cancel() noexcept { client_.cancel(); }

  // The URL of `key` (its path segments percent-encoded).
  std::string url_of(std::string_view key) const;
  HttpClient& client() noexcept { return client_; }

 protected:
  std::string base_url_;
  std::string describe_;
  HttpClient client_;
};

// "http://..." or "https://...": Error(invalid_argument) for a URL with a
// query or fragment.
std::shared_ptr<HttpStore> open_http_store(const std::string& url,
                                           const HttpSettings& settings = HttpSettings::from_environment());

// RFC 3986 section 2: every byte outside the unreserved set percent-encoded;
// '/' too unless `keep_slash` (a key's path segments; SigV4's canonical query
// encodes it).
std::string percent_encode(std::string_view text, bool keep_slash);

// The bytes of `range` of `key` in a successful answer (200 or 206) to a
// request for `requested`; a `range` past the end of the value is Error(io)
// as for every store (byte_range.hpp).
std::span<const std::byte> answered_bytes(const HttpResponse& response, const ByteRange& range,
                                          std::string_view key, const std::string& store);

}  // namespace zarrgpu::store
