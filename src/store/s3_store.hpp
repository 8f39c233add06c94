// S3-compatible object storage (s3://bucket/prefix), and Google Cloud Storage
// through its S3-compatible XML API (gs://bucket/prefix), read-only: s3_store.cpp.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "store/http_store.hpp"

namespace zarrgpu::store {

// `options` as resolve_s3_access (s3_access.hpp) takes them.
std::shared_ptr<Store> open_s3_store(const std::string& url, const std::map<std::string, std::string>& options,
                                     const HttpSettings& settings = HttpSettings::from_environment());

// `options` as resolve_gcs_access (gcs_access.hpp) takes them.
std::shared_ptr<Store> open_gcs_store(const std::string& url, const std::map<std::string, std::string>& options,
                                      const HttpSettings& settings = HttpSettings::from_environment());

}  // namespace zarrgpu::store
