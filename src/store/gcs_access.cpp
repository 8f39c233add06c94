#include "store/gcs_access.hpp"

#include <algorithm>
#include <cstdlib>

#include "zarrgpu/error.hpp"

namespace zarrgpu::store {

S3Access resolve_gcs_access(const std::string& bucket, const std::map<std::string, std::string>& options) {
  const std::string where = "gs://" + bucket;
  static const char* known[] = {"region", "endpoint_url", "key", "secret", "anon"};
  for (const auto& [name, value] : options) {
    if (std::find(std::begin(known), std::end(known), name) == std::end(known)) {
      throw Error(ErrorKind::invalid_argument,
                  "unknown GCS storage option '" + name + "' (region, endpoint_url, key, secret, anon)",
                  {"", "", "", where});
    }
  }
  auto option = [&](const char* name) {
    const auto it = options.find(name);
    return it == options.end() ? std::string() : it->second;
  };
  S3Access a;
  a.region = option("region").empty() ? "auto" : option("region");
  std::string endpoint = option("endpoint_url");
  if (endpoint.empty()) {
    const char* emulator = std::getenv("STORAGE_EMULATOR_HOST");
    endpoint = emulator && *emulator ? emulator : "https://storage.googleapis.com";
  }
  if (endpoint.find("://") == std::string::npos) endpoint = "http://" + endpoint;  // "host:port", as the libraries take it
  while (endpoint.ends_with('/')) endpoint.pop_back();
  a.bucket_url = endpoint + "/" + bucket;

  const std::string anon = option("anon");
  if (!anon.empty() && anon != "true" && anon != "false") {
    throw Error(ErrorKind::invalid_argument, "GCS storage option anon must be true or false, got '" + anon + "'",
                {"", "", "", where});
  }
  if (anon == "true") return a;
  a.access_key_id = option("key");
  a.secret_access_key = option("secret");
  if (a.access_key_id.empty() != a.secret_access_key.empty()) {
    throw Error(ErrorKind::invalid_argument, "a GCS HMAC key needs both its access id (key) and its secret (secret)",
                {"", "", "", where});
  }
  a.anonymous = a.access_key_id.empty();
  return a;
}

}  // namespace zarrgpu::store
