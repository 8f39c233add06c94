#include "store/s3_access.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "zarrgpu/error.hpp"

namespace zarrgpu::store {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The settings of `section` in an AWS shared file (INI: "[name]" headers,
// "key = value" lines, '#' and ';' comments); nullopt when the file or the
// section is absent.
std::optional<std::map<std::string, std::string>> ini_section(const std::string& path, const std::string& section) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::optional<std::map<std::string, std::string>> out;
  bool inside = false;
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      inside = trim(line.substr(1, line.size() - 2)) == section;
      if (inside && !out) out.emplace();
      continue;
    }
    const auto eq = line.find('=');
    if (inside && eq != std::string::npos) (*out)[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  return out;
}

std::string home_file(const char* variable, const char* name) {
  if (auto v = env(variable); !v.empty()) return v;
  return env("HOME") + "/.aws/" + name;
}

std::string first_of(std::initializer_list<std::string> values) {
  for (const auto& v : values) {
    if (!v.empty()) return v;
  }
  return "";
}

std::string get(const std::optional<std::map<std::string, std::string>>& section, const char* key) {
  if (!section) return "";
  const auto it = section->find(key);
  return it == section->end() ? "" : it->second;
}

}  // namespace

S3Access resolve_s3_access(const std::string& bucket, const std::map<std::string, std::string>& options) {
  static const char* known[] = {"region", "endpoint_url", "profile", "key", "secret", "token", "anon"};
  for (const auto& [name, value] : options) {
    if (std::find(std::begin(known), std::end(known), name) == std::end(known)) {
      throw Error(ErrorKind::invalid_argument, "unknown S3 storage option '" + name +
                                                   "' (region, endpoint_url, profile, key, secret, token, anon)",
                  {"", "", "", "s3://" + bucket});
    }
  }
  auto option = [&](const char* name) {
    const auto it = options.find(name);
    return it == options.end() ? std::string() : it->second;
  };
  const std::string profile = first_of({option("profile"), env("AWS_PROFILE"), "default"});
  const std::string credentials_file = home_file("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const std::string config_file = home_file("AWS_CONFIG_FILE", "config");
  const auto credentials = ini_section(credentials_file, profile);
  const auto config = ini_section(config_file, profile == "default" ? profile : "profile " + profile);
  const bool named = !option("profile").empty() || !env("AWS_PROFILE").empty();
  if (named && !credentials && !config) {
    throw Error(ErrorKind::invalid_argument,
                "AWS profile '" + profile + "' is in neither " + credentials_file + " nor " + config_file,
                {"", "", "", "s3://" + bucket});
  }

  S3Access a;
  a.region = first_of({option("region"), env("AWS_REGION"), env("AWS_DEFAULT_REGION"), get(config, "region"),
                       "us-east-1"});
  std::string endpoint = first_of({option("endpoint_url"), env("AWS_ENDPOINT_URL_S3"), env("AWS_ENDPOINT_URL")});
  while (endpoint.ends_with('/')) endpoint.pop_back();
  // Virtual-hosted addressing is AWS's default; a bucket name with dots would
  // not match the wildcard certificate, and other endpoints expect paths.
  if (endpoint.empty() && bucket.find('.') == std::string::npos) {
    a.bucket_url = "https://" + bucket + ".s3." + a.region + ".amazonaws.com";
  } else {
    a.bucket_url = (endpoint.empty() ? "https://s3." + a.region + ".amazonaws.com" : endpoint) + "/" + bucket;
  }

  const std::string anon = option("anon");
  if (!anon.empty() && anon != "true" && anon != "false") {
    throw Error(ErrorKind::invalid_argument, "S3 storage option anon must be true or false, got '" + anon + "'",
                {"", "", "", "s3://" + bucket});
  }
  if (anon == "true") return a;
  if (!option("key").empty() || !option("secret").empty()) {
    a.access_key_id = option("key");
    a.secret_access_key = option("secret");
    a.session_token = option("token");
  } else if (!env("AWS_ACCESS_KEY_ID").empty()) {
    a.access_key_id = env("AWS_ACCESS_KEY_ID");
    a.secret_access_key = env("AWS_SECRET_ACCESS_KEY");
    a.session_token = env("AWS_SESSION_TOKEN");
  } else {
    for (const auto* section : {&credentials, &config}) {
      if (!get(*section, "aws_access_key_id").empty()) {
        a.access_key_id = get(*section, "aws_access_key_id");
        a.secret_access_key = get(*section, "aws_secret_access_key");
        a.session_token = get(*section, "aws_session_token");
        break;
      }
    }
  }
  a.anonymous = a.access_key_id.empty();
  if (!a.anonymous && a.secret_access_key.empty()) {
    throw Error(ErrorKind::invalid_argument, "an AWS access key id without its secret access key",
                {"", "", "", "s3://" + bucket});
  }
  return a;
}

}  // namespace zarrgpu::store
