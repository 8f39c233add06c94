// Where an S3 store is and how its requests are signed, resolved as the AWS
// SDKs do: the caller's options (Python's storage_options), then the
// environment, then the shared files.
//
//   credentials  key/secret/token options; AWS_ACCESS_KEY_ID,
//                AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; the profile's
//                aws_access_key_id... in AWS_SHARED_CREDENTIALS_FILE
//                (~/.aws/credentials), then in AWS_CONFIG_FILE (~/.aws/config).
//                None found, or anon=true: anonymous (unsigned) requests.
//   profile      profile option; AWS_PROFILE; "default"
//   region       region option; AWS_REGION; AWS_DEFAULT_REGION; the profile's
//                region in the config file; us-east-1
//   endpoint     endpoint_url option; AWS_ENDPOINT_URL_S3; AWS_ENDPOINT_URL;
//                https://s3.<region>.amazonaws.com (virtual-hosted buckets;
//                an explicit endpoint is addressed path-style)
#pragma once

#include <map>
#include <string>

namespace zarrgpu::store {

struct S3Access {
  std::string region;
  std::string bucket_url;  // "https://bucket.s3.region.amazonaws.com" or "http://host:port/bucket"
  bool anonymous = true;
  std::string access_key_id, secret_access_key, session_token;
};

// `options`: region, endpoint_url, profile, key, secret, token, anon
// ("true"/"false"); others are Error(invalid_argument).
S3Access resolve_s3_access(const std::string& bucket, const std::map<std::string, std::string>& options);

}  // namespace zarrgpu::store
