// Many HTTP requests at once on libcurl's multi interface: bounded
// concurrency, a timeout per request, retries with exponential backoff (and
// jitter) on the failures that a retry can cure (5xx, 429, timeouts, refused
// or reset connections, truncated bodies), and cancellation. Knows HTTP, not
// stores: HttpStore (http_store.cpp) maps keys to URLs and answers to results.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "zarrgpu/buffer.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::store {

// Settings of remote stores. from_environment() reads
//   ZARRGPU_HTTP_CONCURRENCY   requests in flight per batch (16)
//   ZARRGPU_HTTP_TIMEOUT_MS    whole-request timeout (30000)
//   ZARRGPU_HTTP_CONNECT_TIMEOUT_MS (10000)
//   ZARRGPU_HTTP_RETRIES       retries after the first attempt (4)
//   ZARRGPU_HTTP_BACKOFF_MS    first backoff, doubled per retry up to 100x (100)
//   ZARRGPU_HTTP_COALESCE_GAP  ranges of one key closer than this are read by one request (1 MiB)
struct HttpSettings {
  std::size_t max_in_flight = 16;
  std::chrono::milliseconds timeout{30000};
  std::chrono::milliseconds connect_timeout{10000};
  int retries = 4;
  std::chrono::milliseconds backoff{100};
  std::uint64_t coalesce_gap = std::uint64_t{1} << 20;
  std::uint64_t coalesce_max = std::uint64_t{64} << 20;  // bytes one merged request may span
  static HttpSettings from_environment();
};

struct HttpRequest {
  std::string url;
  std::string range;  // "bytes=0-99", "bytes=-16", "" for the whole value
  bool head = false;
  std::string key;  // for error contexts
  std::vector<std::string> headers;  // extra "Name: value" lines
  // A 200 answer to a range request carries the whole value: keep only its
  // first body_limit bytes (0: no limit).
  std::uint64_t body_limit = 0;
};

struct HttpResponse {
  long status = 0;
  std::string content_range;  // the Content-Range header, "" when absent
  std::string etag;
  std::optional<std::uint64_t> content_length;
  Bytes body;  // bytes received; error answers keep at most a few KiB
  bool body_limited = false;  // stopped at body_limit
};

// Strips user information and the query (which may hold credentials or a
// signature) from a URL, for messages.
std::string redact_url(std::string_view url);

class HttpClient {
 public:
  // `configure` is applied to each request's curl handle before it starts
  // (S3: signing), `headers` ("Name: value") are sent with every request;
  // `describe` names the store in errors.
  HttpClient(HttpSettings settings, std::string describe, std::function<void(void* curl)> configure = {},
             std::vector<std::string> headers = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Runs every request, at most max_in_flight at once, and returns the
  // answers in order. Statuses a retry cannot cure (404, 403, 416...) are
  // returned; transient failures are retried, and when the retries run out,
  // or cancel() is called, throws Error(io) naming the URL (redacted) and the
  // key; the other requests of the batch are abandoned.
  std::vector<HttpResponse> perform(std::span<const HttpRequest> requests);

  // Abandons the batches running now: their perform() throws Error(io)
  // "cancelled" within one poll. Later batches run normally.
  void cancel() noexcept;

  const HttpSettings& settings() const noexcept { return settings_; }
  // Every request this client has sent, counted as it starts (retries too),
  // and the body bytes of every answer, as they arrive.
  StoreActivity activity() const noexcept;

 private:
  HttpSettings settings_;
  std::string describe_;
  std::function<void(void*)> configure_;
  std::vector<std::string> headers_;
  std::atomic<std::uint64_t> cancel_epoch_{0};
  std::atomic<std::uint64_t> requests_{0}, retries_{0}, bytes_fetched_{0};
  std::mutex mutex_;
  std::vector<void*> idle_multis_;  // kept for their connection caches
  std::set<void*> busy_multis_;
};

}  // namespace zarrgpu::store
