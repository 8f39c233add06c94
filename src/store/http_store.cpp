#include "store/http_store.hpp"

#include <cstdio>
#include <cstring>
#include <map>

#include "store/byte_range.hpp"
#include "store/range_coalescing.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::store {
namespace {

bool unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

}  // namespace

std::string percent_encode(std::string_view text, bool keep_slash) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const unsigned char c : text) {
    if (unreserved(c) || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

namespace {

std::string range_header(const ByteRange& r) {
  if (r.suffix_length > 0) return "bytes=-" + std::to_string(r.suffix_length);
  if (r.length == ByteRange::npos) return r.offset == 0 ? "" : "bytes=" + std::to_string(r.offset) + "-";
  return "bytes=" + std::to_string(r.offset) + "-" + std::to_string(r.offset + r.length - 1);
}

// The text of an error answer worth quoting (an S3 error document's Code and
// Message), or "".
std::string quoted_body(const HttpResponse& r) {
  std::string body(reinterpret_cast<const char*>(r.body.data()), r.body.size());
  for (char& c : body) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (body.size() > 300) body = body.substr(0, 300) + "...";
  return body.empty() ? "" : ": " + body;
}

// One GET (or HEAD) of a read() batch and the requests it answers.
struct Fetch {
  std::string key;
  ByteRange range;
  bool head = false;
  std::vector<std::size_t> members;
};

}  // namespace

std::span<const std::byte> answered_bytes(const HttpResponse& response, const ByteRange& range, std::string_view key,
                                          const std::string& store) {
  const ErrorContext ctx{"", std::string(key), "", store};
  std::uint64_t first = 0;
  std::uint64_t total = response.body.size();
  if (response.status == 206) {
    unsigned long long a = 0, b = 0, t = 0;
    char star = 0;
    if (std::sscanf(response.content_range.c_str(), "bytes %llu-%llu/%llu", &a, &b, &t) == 3) {
      total = t;
    } else if (std::sscanf(response.content_range.c_str(), "bytes %llu-%llu/%c", &a, &b, &star) == 3 && star == '*') {
      total = b + 1;  // size unknown to the server: what it sent ends the value as far as we know
    } else {
      throw Error(ErrorKind::io, "206 answer with Content-Range '" + response.content_range + "'", ctx);
    }
    first = a;
  }
  const ResolvedRange r = resolve_range(range, total, key, store);
  if (r.offset < first || r.offset + r.length > first + response.body.size()) {
    throw Error(ErrorKind::io,
                "the server answered bytes " + response.content_range + " for range [" + std::to_string(r.offset) +
                    ", +" + std::to_string(r.length) + ") of '" + std::string(key) + "'",
                ctx);
  }
  return {response.body.data() + (r.offset - first), static_cast<std::size_t>(r.length)};
}

HttpStore::HttpStore(std::string base_url, HttpSettings settings, std::string describe,
                     std::function<void(void*)> configure, std::vector<std::string> headers)
    : base_url_(std::move(base_url)),
      describe_(describe.empty() ? redact_url(base_url_) : std::move(describe)),
      client_(settings, describe_, std::move(configure), std::move(headers)) {}

std::string HttpStore::url_of(std::string_view key) const { return base_url_ + "/" + percent_encode(key, true); }

std::string HttpStore::describe() const { return describe_; }

std::vector<ReadResult> HttpStore::read(std::span<const ReadInto> requests) {
  const std::string store = describe();
  // Bounded ranges of one key are coalesced; the others are one request each.
  std::vector<Fetch> fetches;
  std::map<std::string_view, std::vector<std::size_t>> bounded;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const ReadRequest& r = requests[i].request;
    check_key(r.key, store);
    if (r.range.suffix_length == 0 && r.range.length != ByteRange::npos && r.range.length > 0) {
      bounded[r.key].push_back(i);
    } else {
      // A zero-length range needs only the value's size: HEAD.
      const bool empty = r.range.suffix_length == 0 && r.range.length == 0;
      fetches.push_back({r.key, r.range, empty, {i}});
    }
  }
  const auto& settings = client_.settings();
  for (const auto& [key, indices] : bounded) {
    std::vector<RangeOf> ranges;
    for (const std::size_t i : indices) ranges.push_back({requests[i].request.range.offset, requests[i].request.range.length});
    for (auto& group : coalesce_ranges(ranges, settings.coalesce_gap, settings.coalesce_max)) {
      Fetch f{std::string(key), ByteRange::of(group.offset, group.length), false, {}};
      for (const std::size_t m : group.members) f.members.push_back(indices[m]);
      fetches.push_back(std::move(f));
    }
  }

  std::vector<HttpRequest> http(fetches.size());
  for (std::size_t i = 0; i < fetches.size(); ++i) {
    const Fetch& f = fetches[i];
    http[i].url = url_of(f.key);
    http[i].key = f.key;
    http[i].head = f.head;
    if (!f.head) http[i].range = range_header(f.range);
    if (!f.head && f.range.suffix_length == 0 && f.range.length != ByteRange::npos) {
      http[i].body_limit = f.range.offset + f.range.length;
    }
  }
  const auto answers = client_.perform(http);

  std::vector<ReadResult> out(requests.size());
  for (std::size_t i = 0; i < fetches.size(); ++i) {
    const Fetch& f = fetches[i];
    const HttpResponse& a = answers[i];
    const ErrorContext ctx{"", f.key, "", store};
    if (a.status == 404 || a.status == 410) continue;  // a missing key
    if (a.status == 401 || a.status == 403) {
      throw Error(ErrorKind::io,
                  "GET " + redact_url(http[i].url) + ": HTTP " + std::to_string(a.status) + " (permission denied)" +
                      quoted_body(a),
                  ctx);
    }
    for (const std::size_t m : f.members) {
      const ReadInto& req = requests[m];
      std::span<const std::byte> bytes;
      if (a.status == 416 || (f.head && a.status == 200)) {
        // No bytes: the value's size decides whether the range was valid.
        unsigned long long total = 0;
        const bool known = f.head ? a.content_length.has_value()
                                  : std::sscanf(a.content_range.c_str(), "bytes */%llu", &total) == 1;
        if (!known) {
          throw Error(ErrorKind::io, "GET " + redact_url(http[i].url) + ": HTTP " + std::to_string(a.status) +
                                         " without the value's size", ctx);
        }
        resolve_range(req.request.range, f.head ? *a.content_length : total, f.key, store);
      } else if (a.status == 200 || a.status == 206) {
        bytes = answered_bytes(a, req.request.range, f.key, store);
      } else {
        throw Error(ErrorKind::io,
                    "GET " + redact_url(http[i].url) + ": unexpected HTTP " + std::to_string(a.status) + quoted_body(a),
                    ctx);
      }
      ReadResult& res = out[m];
      res.found = true;
      res.size = bytes.size();
      if (!req.dest.empty()) {
        if (req.dest.size() != bytes.size()) {
          throw Error(ErrorKind::invalid_argument,
                      "read of '" + f.key + "': destination holds " + std::to_string(req.dest.size()) +
                          " bytes, range " + std::to_string(bytes.size()),
                      ctx);
        }
        if (!bytes.empty()) std::memcpy(req.dest.data(), bytes.data(), bytes.size());
      } else {
        res.data = Bytes(bytes.data(), bytes.size());
      }
    }
  }
  return out;
}

void HttpStore::write(std::string_view key, std::span<const std::byte>) {
  throw Error(ErrorKind::unsupported, "remote stores (HTTP, S3) are read-only", {"", std::string(key), "", describe()});
}

void HttpStore::erase(std::string_view key) {
  throw Error(ErrorKind::unsupported, "remote stores (HTTP, S3) are read-only", {"", std::string(key), "", describe()});
}

std::vector<std::string> HttpStore::list(std::string_view prefix) {
  throw Error(ErrorKind::unsupported,
              "an HTTP server cannot list keys (under '" + std::string(prefix) +
                  "'): open arrays by their path, or groups that have consolidated metadata "
                  "(zarrgpu consolidate)",
              {"", "", "", describe()});
}

std::optional<std::uint64_t> HttpStore::size(std::string_view key) {
  check_key(key, describe());
  HttpRequest head{url_of(key), "", true, std::string(key), {}, 0};
  auto answer = std::move(client_.perform(std::span(&head, 1)).at(0));
  if (answer.status == 404 || answer.status == 410) return std::nullopt;
  if (answer.status != 200 || !answer.content_length) {
    throw Error(ErrorKind::io, "HEAD " + redact_url(head.url) + ": HTTP " + std::to_string(answer.status) +
                                   (answer.status == 200 ? " without Content-Length" : "") +
                                   (answer.status == 401 || answer.status == 403 ? " (permission denied)" : ""),
                {"", std::string(key), "", describe()});
  }
  return *answer.content_length;
}

bool HttpStore::exists(std::string_view key) { return size(key).has_value(); }

namespace {

// One version of a remote value: its size and ETag from a HEAD; every read
// sends If-Match, so a value replaced since is 412, an error.
class HttpValue final : public StoredValue {
 public:
  HttpValue(HttpStore& store, std::string key, std::uint64_t size, std::string etag)
      : store_(store), key_(std::move(key)), size_(size), etag_(std::move(etag)) {}
  std::uint64_t size() const noexcept override { return size_; }
  void read(std::uint64_t offset, std::span<std::byte> dest) const override {
    const std::string where = store_.describe();
    const ByteRange range = ByteRange::of(offset, dest.size());
    resolve_range(range, size_, key_, where);
    if (dest.empty()) return;
    HttpRequest get{store_.url_of(key_), range_header(range), false, key_, {}, offset + dest.size()};
    // Weak validators ("W/...") cannot be used with If-Match (RFC 9110 13.1.1).
    if (!etag_.empty() && !etag_.starts_with("W/")) get.headers.push_back("If-Match: " + etag_);
    auto answer = std::move(store_.client().perform(std::span(&get, 1)).at(0));
    const ErrorContext ctx{"", key_, "", where};
    if (answer.status == 412 || answer.status == 404) {
      throw Error(ErrorKind::io, "GET " + redact_url(get.url) + ": the value changed while it was being read", ctx);
    }
    if (answer.status != 200 && answer.status != 206) {
      throw Error(ErrorKind::io, "GET " + redact_url(get.url) + ": HTTP " + std::to_string(answer.status), ctx);
    }
    const auto bytes = answered_bytes(answer, range, key_, where);
    std::memcpy(dest.data(), bytes.data(), bytes.size());
  }

 private:
  HttpStore& store_;
  std::string key_;
  std::uint64_t size_;
  std::string etag_;
};

}  // namespace

std::unique_ptr<StoredValue> HttpStore::open_value(std::string_view key) {
  check_key(key, describe());
  HttpRequest head{url_of(key), "", true, std::string(key), {}, 0};
  auto answer = std::move(client_.perform(std::span(&head, 1)).at(0));
  if (answer.status == 404 || answer.status == 410) return nullptr;
  if (answer.status != 200 || !answer.content_length) {
    throw Error(ErrorKind::io,
                "HEAD " + redact_url(head.url) + ": HTTP " + std::to_string(answer.status) +
                    (answer.status == 401 || answer.status == 403 ? " (permission denied)" : ""),
                {"", std::string(key), "", describe()});
  }
  return std::make_unique<HttpValue>(*this, std::string(key), *answer.content_length, answer.etag);
}

std::optional<std::uint64_t> HttpStore::read_whole_bounded(std::string_view key, std::uint64_t limit,
                                                            Bytes& buffer) {
  check_key(key, describe());
  const bool bounded = limit < ByteRange::npos - 1;
  HttpRequest get{url_of(key), bounded ? "bytes=0-" + std::to_string(limit) : "", false, std::string(key), {},
                  bounded ? limit + 1 : 0};
  auto answer = std::move(client_.perform(std::span(&get, 1)).at(0));
  const ErrorContext ctx{"", std::string(key), "", describe()};
  const long status = answer.status;
  if (status == 404 || status == 410) return std::nullopt;
  unsigned long long a = 0, b = 0, total = 0;
  std::uint64_t size = 0;
  if (status == 206) {
    char star = 0;
    if (std::sscanf(answer.content_range.c_str(), "bytes %llu-%llu/%llu", &a, &b, &total) == 3 && a == 0) {
      size = total;
    } else if (std::sscanf(answer.content_range.c_str(), "bytes %llu-%llu/%c", &a, &b, &star) == 3 && a == 0 &&
               star == '*') {
      size = answer.body.size();  // the server does not know the size: more than asked for counts as too big
    } else {
      throw Error(ErrorKind::io, "GET " + redact_url(get.url) + ": 206 answer with Content-Range '" +
                                     answer.content_range + "' to a request for bytes 0-" + std::to_string(limit), ctx);
    }
  } else if (status == 200) {
    // A server that ignores ranges sends the whole value; the client kept limit + 1 bytes of it.
    size = answer.body_limited ? answer.content_length.value_or(limit + 1) : answer.body.size();
  } else if (status == 416 && std::sscanf(answer.content_range.c_str(), "bytes */%llu", &total) == 1) {
    size = total;  // an empty value has no byte 0
    if (size != 0) {
      throw Error(ErrorKind::io, "GET " + redact_url(get.url) + ": HTTP 416 for bytes 0-" + std::to_string(limit) +
                                     " of a value of " + std::to_string(size) + " bytes", ctx);
    }
  } else {
    throw Error(ErrorKind::io,
                "GET " + redact_url(get.url) + ": " + (status == 401 || status == 403 ? "HTTP " : "unexpected HTTP ") +
                    std::to_string(status) + (status == 401 || status == 403 ? " (permission denied)" : "") +
                    quoted_body(answer),
                ctx);
  }
  if (size <= limit) {
    if (answer.body.size() != size) {
      throw Error(ErrorKind::io, "GET " + redact_url(get.url) + ": " + std::to_string(answer.body.size()) +
                                     " bytes of a value of " + std::to_string(size), ctx);
    }
    buffer = std::move(answer.body);
  }
  return size;
}

std::shared_ptr<HttpStore> open_http_store(const std::string& url, const HttpSettings& settings) {
  if (url.find_first_of("?#") != std::string::npos) {
    throw Error(ErrorKind::invalid_argument, "a store URL with a query or fragment is not supported",
                {"", "", "", redact_url(url)});
  }
  std::string base = url;
  while (base.ends_with('/')) base.pop_back();
  return std::make_shared<HttpStore>(std::move(base), settings);
}

}  // namespace zarrgpu::store
