// S3-compatible object storage, and GCS through its XML API, which speaks
// S3's protocol; read-only: an HttpStore on the bucket's URL whose requests
// libcurl signs with AWS Signature Version 4 (CURLOPT_AWS_SIGV4), plus listing
// with ListObjectsV2, which plain HTTP lacks. Where it is and who signs:
// s3_access.hpp, gcs_access.hpp.
#include "store/s3_store.hpp"

#include <curl/curl.h>

#include "store/gcs_access.hpp"
#include "store/s3_access.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::store {
namespace {

// The five predefined entities of XML 1.0 (section 4.6), all that S3 escapes.
std::string xml_unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    static constexpr std::pair<std::string_view, char> entities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool matched = false;
    for (const auto& [name, c] : entities) {
      if (s.substr(i, name.size()) == name) {
        out += c;
        i += name.size() - 1;
        matched = true;
        break;
      }
    }
    if (!matched) out += '&';
  }
  return out;
}

// The text of every <tag>...</tag> in `xml`, in order.
std::vector<std::string> elements(std::string_view xml, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  std::vector<std::string> out;
  for (std::size_t pos = 0;;) {
    const auto b = xml.find(open, pos);
    if (b == std::string_view::npos) break;
    const auto e = xml.find(close, b + open.size());
    if (e == std::string_view::npos) break;
    out.push_back(xml_unescape(xml.substr(b + open.size(), e - b - open.size())));
    pos = e + close.size();
  }
  return out;
}

class S3Store final : public HttpStore {
 public:
  // `kind`: "s3", or "gs" for GCS's XML API.
  S3Store(std::string kind, const S3Access& access, std::string prefix, std::string describe,
          const HttpSettings& settings)
      : HttpStore(access.bucket_url + (prefix.empty() ? "" : "/" + prefix), settings, std::move(describe),
                  signer(access), signed_headers(access)),
        kind_(std::move(kind)),
        bucket_url_(access.bucket_url),
        prefix_(std::move(prefix)) {}

  std::string kind() const override { return kind_; }

  // ListObjectsV2, page by page (continuation tokens), keys relative to the store.
  std::vector<std::string> list(std::string_view prefix) override {
    const std::string root = prefix_.empty() ? "" : prefix_ + "/";
    const std::string wanted = root + std::string(prefix);
    std::vector<std::string> keys;
    std::string token;
    for (;;) {
      // Query parameters in SigV4's canonical (sorted) order.
      std::string url = bucket_url_ + "?";
      if (!token.empty()) url += "continuation-token=" + percent_encode(token, false) + "&";
      url += "list-type=2&prefix=" + percent_encode(wanted, false);
      HttpRequest get{url, "", false, std::string(prefix), {}, 0};
      auto answer = std::move(client().perform(std::span(&get, 1)).at(0));
      const std::string_view xml(reinterpret_cast<const char*>(answer.body.data()), answer.body.size());
      if (answer.status != 200) {
        const auto code = elements(xml, "Code");
        throw Error(ErrorKind::io,
                    "ListObjectsV2 of " + describe() + " (prefix '" + std::string(prefix) + "'): HTTP " +
                        std::to_string(answer.status) + (code.empty() ? "" : " " + code[0]) +
                        (answer.status == 403 ? " (permission denied)" : ""),
                    {"", "", "", describe()});
      }
      for (auto& key : elements(xml, "Key")) {
        if (key.starts_with(root)) keys.push_back(key.substr(root.size()));
      }
      const auto truncated = elements(xml, "IsTruncated");
      const auto next = elements(xml, "NextContinuationToken");
      if (truncated.empty() || truncated[0] != "true" || next.empty()) break;
      token = next[0];
    }
    // A prefix without '/' names a key or a "directory" (as for every store).
    std::vector<std::string> out;
    for (auto& k : keys) {
      if (prefix.empty() || prefix.back() == '/' || k == prefix ||
          (k.size() > prefix.size() && k[prefix.size()] == '/')) {
        out.push_back(std::move(k));
      }
    }
    return out;
  }

 private:
  // S3 wants the payload's hash in x-amz-content-sha256 on every signed
  // request; ours have none: SHA-256 of "" (Debian 12's libcurl 7.88 does not
  // add the header; it signs it with the other x-amz-* headers, as it does
  // the session token).
  static std::vector<std::string> signed_headers(const S3Access& access) {
    if (access.anonymous) return {};
    std::vector<std::string> h{
        "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"};
    if (!access.session_token.empty()) h.push_back("x-amz-security-token: " + access.session_token);
    return h;
  }

  static std::function<void(void*)> signer(const S3Access& access) {
    if (access.anonymous) return {};
    const std::string provider = "aws:amz:" + access.region + ":s3";
    const std::string userpwd = access.access_key_id + ":" + access.secret_access_key;
    return [provider, userpwd](void* curl) {
      curl_easy_setopt(static_cast<CURL*>(curl), CURLOPT_AWS_SIGV4, provider.c_str());
      curl_easy_setopt(static_cast<CURL*>(curl), CURLOPT_USERPWD, userpwd.c_str());
    };
  }

  std::string kind_;
  std::string bucket_url_;
  std::string prefix_;
};

struct BucketAndPrefix {
  std::string bucket, prefix;
};

// "<scheme>://bucket[/prefix]" (the scheme already checked).
BucketAndPrefix split_bucket_url(const std::string& url, std::string_view scheme) {
  std::string_view rest = std::string_view(url).substr(scheme.size() + 3);
  const auto slash = rest.find('/');
  BucketAndPrefix out{std::string(rest.substr(0, slash)),
                      std::string(slash == std::string_view::npos ? "" : rest.substr(slash + 1))};
  while (out.prefix.ends_with('/')) out.prefix.pop_back();
  if (out.bucket.empty() || url.find_first_of("?#") != std::string::npos) {
    throw Error(ErrorKind::invalid_argument, "a store URL is " + std::string(scheme) + "://bucket[/prefix]",
                {"", "", "", url});
  }
  return out;
}

std::string describe_of(std::string_view scheme, const BucketAndPrefix& where) {
  return std::string(scheme) + "://" + where.bucket + (where.prefix.empty() ? "" : "/" + where.prefix);
}

}  // namespace

std::shared_ptr<Store> open_s3_store(const std::string& url, const std::map<std::string, std::string>& options,
                                     const HttpSettings& settings) {
  BucketAndPrefix where = split_bucket_url(url, "s3");
  const S3Access access = resolve_s3_access(where.bucket, options);
  return std::make_shared<S3Store>("s3", access, where.prefix, describe_of("s3", where), settings);
}

std::shared_ptr<Store> open_gcs_store(const std::string& url, const std::map<std::string, std::string>& options,
                                      const HttpSettings& settings) {
  BucketAndPrefix where = split_bucket_url(url, "gs");
  const S3Access access = resolve_gcs_access(where.bucket, options);
  return std::make_shared<S3Store>("gs", access, where.prefix, describe_of("gs", where), settings);
}

}  // namespace zarrgpu::store
