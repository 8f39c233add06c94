#include "store/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <thread>

#include "zarrgpu/error.hpp"

namespace zarrgpu::store {
namespace {

using Clock = std::chrono::steady_clock;

// Error answers are kept only to quote them (an S3 error document).
constexpr std::size_t kErrorBodyLimit = 4096;

void global_init() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) throw Error(ErrorKind::internal, std::string("curl_global_init: ") + curl_easy_strerror(rc));
}

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*end != '\0') {
    throw Error(ErrorKind::invalid_argument, std::string(name) + "='" + v + "' is not a whole number");
  }
  return n;
}

bool transient_status(long status) { return status >= 500 || status == 429 || status == 408; }

bool transient_curl(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_COULDNT_RESOLVE_HOST:
      return true;
    default:
      return false;
  }
}

// "bytes a-b/total" -> b - a + 1; nullopt when the header is not of that form.
std::optional<std::uint64_t> content_range_length(const std::string& header) {
  unsigned long long a = 0, b = 0;
  if (std::sscanf(header.c_str(), "bytes %llu-%llu/", &a, &b) != 2 || b < a) return std::nullopt;
  return b - a + 1;
}

struct Transfer {
  const HttpRequest* request = nullptr;
  std::size_t index = 0;
  int attempt = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  HttpResponse response;
  std::size_t received = 0;
  std::atomic<std::uint64_t>* fetched = nullptr;  // the client's count of body bytes
  char errbuf[CURL_ERROR_SIZE] = {};

  ~Transfer() { release(); }
  void release() {
    if (easy) curl_easy_cleanup(easy);
    if (headers) curl_slist_free_all(headers);
    easy = nullptr;
    headers = nullptr;
  }
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * n;
  t->fetched->fetch_add(bytes, std::memory_order_relaxed);
  long status = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  std::size_t keep = bytes;
  const bool ok = status == 200 || status == 206;
  if (!ok) keep = std::min(bytes, kErrorBodyLimit > t->received ? kErrorBodyLimit - t->received : 0);
  const std::uint64_t limit = t->request->body_limit;
  if (ok && status == 200 && limit && t->received + keep >= limit) {
    keep = static_cast<std::size_t>(limit - t->received);
    t->response.body_limited = true;
  }
  Bytes& body = t->response.body;
  if (t->received + keep > body.size()) {
    // Grow geometrically; shrunk to the received size when the transfer ends.
    body.resize(std::max<std::size_t>(t->received + keep, body.size() * 2));
  }
  if (keep) std::memcpy(body.data() + t->received, data, keep);
  t->received += keep;
  return t->response.body_limited ? 0 : bytes;  // 0 stops the transfer: we have what we asked for
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * n;
  std::string_view line(data, bytes);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.starts_with("HTTP/")) {  // a new answer (after a redirect or 100 Continue)
    t->response.content_range.clear();
    t->response.etag.clear();
    return bytes;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (name == "content-range") t->response.content_range = value;
  if (name == "etag") t->response.etag = value;
  return bytes;
}

}  // namespace

HttpSettings HttpSettings::from_environment() {
  HttpSettings s;
  s.max_in_flight = std::max<std::uint64_t>(1, env_number("ZARRGPU_HTTP_CONCURRENCY", s.max_in_flight));
  s.timeout = std::chrono::milliseconds(env_number("ZARRGPU_HTTP_TIMEOUT_MS", s.timeout.count()));
  s.connect_timeout = std::chrono::milliseconds(env_number("ZARRGPU_HTTP_CONNECT_TIMEOUT_MS", s.connect_timeout.count()));
  s.retries = static_cast<int>(std::min<std::uint64_t>(100, env_number("ZARRGPU_HTTP_RETRIES", s.retries)));
  s.backoff = std::chrono::milliseconds(env_number("ZARRGPU_HTTP_BACKOFF_MS", s.backoff.count()));
  s.coalesce_gap = env_number("ZARRGPU_HTTP_COALESCE_GAP", s.coalesce_gap);
  return s;
}

std::string redact_url(std::string_view url) {
  std::string_view u = url;
  if (const auto q = u.find_first_of("?#"); q != std::string_view::npos) u = u.substr(0, q);
  const auto scheme = u.find("://");
  if (scheme == std::string_view::npos) return std::string(u);
  const auto host_start = scheme + 3;
  const auto path_start = u.find('/', host_start);
  const std::string_view authority = u.substr(host_start, path_start == std::string_view::npos ? u.npos : path_start - host_start);
  const auto at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(u);
  return std::string(u.substr(0, host_start)) + std::string(u.substr(host_start + at + 1));
}

HttpClient::HttpClient(HttpSettings settings, std::string describe, std::function<void(void*)> configure,
                       std::vector<std::string> headers)
    : settings_(settings), describe_(std::move(describe)), configure_(std::move(configure)), headers_(std::move(headers)) {
  global_init();
}

HttpClient::~HttpClient() {
  for (void* m : idle_multis_) curl_multi_cleanup(static_cast<CURLM*>(m));
}

StoreActivity HttpClient::activity() const noexcept {
  return {requests_.load(std::memory_order_relaxed), retries_.load(std::memory_order_relaxed),
          bytes_fetched_.load(std::memory_order_relaxed)};
}

void HttpClient::cancel() noexcept {
  cancel_epoch_.fetch_add(1);
  std::lock_guard lk(mutex_);
  for (void* m : busy_multis_) curl_multi_wakeup(static_cast<CURLM*>(m));
}

std::vector<HttpResponse> HttpClient::perform(std::span<const HttpRequest> requests) {
  const std::uint64_t epoch = cancel_epoch_.load();
  CURLM* multi = nullptr;
  {
    std::lock_guard lk(mutex_);
    if (!idle_multis_.empty()) {
      multi = static_cast<CURLM*>(idle_multis_.back());
      idle_multis_.pop_back();
    } else {
      multi = curl_multi_init();
      if (!multi) throw Error(ErrorKind::resource_exhausted, "curl_multi_init failed", {"", "", "", describe_});
    }
    busy_multis_.insert(multi);
  }
  std::vector<std::unique_ptr<Transfer>> transfers(requests.size());
  // Whatever happens, the handles leave the multi before it goes back to the pool.
  struct Return {
    HttpClient* self;
    CURLM* multi;
    std::vector<std::unique_ptr<Transfer>>& transfers;
    ~Return() {
      for (auto& t : transfers) {
        if (t && t->easy) curl_multi_remove_handle(multi, t->easy);
      }
      std::lock_guard lk(self->mutex_);
      self->busy_multis_.erase(multi);
      self->idle_multis_.push_back(multi);
    }
  } give_back{this, multi, transfers};

  std::minstd_rand jitter(std::random_device{}());
  struct Waiting {
    std::size_t index;
    Clock::time_point ready;
  };
  std::deque<Waiting> waiting;
  for (std::size_t i = 0; i < requests.size(); ++i) waiting.push_back({i, Clock::now()});
  std::size_t active = 0, done = 0;

  auto fail = [&](const HttpRequest& r, const std::string& why) -> Error {
    return Error(ErrorKind::io, std::string(r.head ? "HEAD " : "GET ") + redact_url(r.url) + ": " + why,
                 {"", r.key, "", describe_});
  };

  auto start = [&](std::size_t i) {
    auto& t = transfers[i];
    if (!t) t = std::make_unique<Transfer>();
    t->release();
    t->request = &requests[i];
    t->index = i;
    t->response = {};
    t->received = 0;
    t->fetched = &bytes_fetched_;
    t->errbuf[0] = '\0';
    t->easy = curl_easy_init();
    if (!t->easy) throw fail(requests[i], "curl_easy_init failed");
    CURL* e = t->easy;
    const HttpRequest& r = requests[i];
    curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.timeout.count()));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(settings_.connect_timeout.count()));
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    curl_easy_setopt(e, CURLOPT_USERAGENT, "zarrgpu");
    if (r.head) curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    if (!r.range.empty()) {
      // CURLOPT_RANGE takes "a-b" / "-n"; the "bytes=" unit is curl's.
      const std::string spec = r.range.starts_with("bytes=") ? r.range.substr(6) : r.range;
      curl_easy_setopt(e, CURLOPT_RANGE, spec.c_str());  // copied by curl
    }
    for (const auto& h : headers_) t->headers = curl_slist_append(t->headers, h.c_str());
    for (const auto& h : r.headers) t->headers = curl_slist_append(t->headers, h.c_str());
    if (t->headers) curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
    if (configure_) configure_(e);
    if (curl_multi_add_handle(multi, e) != CURLM_OK) throw fail(r, "curl_multi_add_handle failed");
    requests_.fetch_add(1, std::memory_order_relaxed);
    if (t->attempt > 0) retries_.fetch_add(1, std::memory_order_relaxed);
    ++active;
  };

  // Whether a finished attempt should be tried again, and why.
  auto transient = [&](Transfer& t, CURLcode rc, std::string& why) {
    const HttpRequest& r = *t.request;
    if (rc == CURLE_WRITE_ERROR && t.response.body_limited) rc = CURLE_OK;
    if (rc != CURLE_OK) {
      why = std::string(t.errbuf[0] ? t.errbuf : curl_easy_strerror(rc));
      return transient_curl(rc);
    }
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.response.status);
    const long s = t.response.status;
    if (transient_status(s)) {
      why = "HTTP " + std::to_string(s);
      return true;
    }
    curl_off_t cl = -1;
    curl_easy_getinfo(t.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
    if (cl >= 0) t.response.content_length = static_cast<std::uint64_t>(cl);
    // A body shorter than its headers promise is a broken connection that
    // curl did not see (a 206 whose Content-Range says more than arrived).
    if (s == 206 && !r.head) {
      const auto want = content_range_length(t.response.content_range);
      if (!want) {
        why = "206 answer without a valid Content-Range ('" + t.response.content_range + "')";
        return true;
      }
      if (*want != t.received) {
        why = "body truncated: " + std::to_string(t.received) + " of " + std::to_string(*want) + " bytes";
        return true;
      }
    }
    if (s == 200 && !r.head && !t.response.body_limited && t.response.content_length &&
        *t.response.content_length != t.received) {
      why = "body truncated: " + std::to_string(t.received) + " of " + std::to_string(*t.response.content_length) + " bytes";
      return true;
    }
    return false;
  };

  std::vector<HttpResponse> out(requests.size());
  const int attempts = 1 + settings_.retries;
  while (done < requests.size()) {
    if (cancel_epoch_.load() != epoch) throw fail(requests[waiting.empty() ? 0 : waiting.front().index], "cancelled");
    const auto now = Clock::now();
    // Start what is due, up to the bound; the queue keeps retries after new requests.
    for (auto it = waiting.begin(); it != waiting.end() && active < settings_.max_in_flight;) {
      if (it->ready <= now) {
        start(it->index);
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
    int running = 0;
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      const CURLcode rc = msg->data.result;
      curl_multi_remove_handle(multi, t->easy);
      --active;
      std::string why;
      const bool retry = transient(*t, rc, why);
      if (!why.empty() && !retry) {
        // A failure no retry cures (TLS verification, a malformed URL...).
        throw fail(*t->request, why);
      }
      if (retry) {
        if (++t->attempt >= attempts) {
          throw fail(*t->request, why + " (after " + std::to_string(attempts) + " attempts)");
        }
        // Exponential backoff with "equal jitter": half fixed, half random.
        const auto base = std::min(settings_.backoff * (std::int64_t{1} << std::min(t->attempt - 1, 20)),
                                   settings_.backoff * 100);
        const auto half = base.count() / 2;
        const auto delay = std::chrono::milliseconds(half + (half ? std::int64_t(jitter() % (half + 1)) : 0));
        t->release();
        waiting.push_back({t->index, Clock::now() + delay});
        continue;
      }
      t->response.body.resize(t->received);
      out[t->index] = std::move(t->response);
      t->release();
      ++done;
    }
    if (done == requests.size()) break;
    // Sleep until a socket is ready, a retry is due, or cancel() wakes us.
    auto wait = std::chrono::milliseconds(1000);
    const auto after = Clock::now();
    if (active < settings_.max_in_flight) for (const auto& w : waiting) {
      wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::max(w.ready - after, Clock::duration::zero())));
    }
    curl_multi_poll(multi, nullptr, 0, static_cast<int>(wait.count()), nullptr);
  }
  return out;
}

}  // namespace zarrgpu::store
