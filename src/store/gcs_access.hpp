// Where a Google Cloud Storage bucket is and how its requests are signed, for
// gs://bucket/prefix read through GCS's XML API, which speaks S3's protocol
// (https://cloud.google.com/storage/docs/interoperability):
//
//   credentials  key/secret options: an HMAC key of a service account, signed
//                with AWS Signature Version 4 as S3 requests are. None, or
//                anon=true: anonymous (unsigned) requests, for public buckets.
//                AWS credentials (environment, shared files) are never used.
//   region       region option; "auto" (the region GCS documents for SigV4)
//   endpoint     endpoint_url option; STORAGE_EMULATOR_HOST (the variable
//                Google's client libraries read for an emulator);
//                https://storage.googleapis.com. Buckets are addressed path-style.
#pragma once

#include <map>
#include <string>

#include "store/s3_access.hpp"

namespace zarrgpu::store {

// `options`: region, endpoint_url, key, secret, anon ("true"/"false"); others
// are Error(invalid_argument).
S3Access resolve_gcs_access(const std::string& bucket, const std::map<std::string, std::string>& options);

}  // namespace zarrgpu::store
