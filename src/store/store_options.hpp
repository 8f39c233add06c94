// Options of remote stores by name (S3: region, endpoint_url, profile, key,
// secret, token, anon; README.md), for the callers that have them (Python's
// storage_options). Values never appear in errors.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "zarrgpu/store.hpp"

namespace zarrgpu {

using StoreOptions = std::map<std::string, std::string>;

// open_store with `options` for a remote store.
std::shared_ptr<Store> open_store(const std::string& url, bool create, const StoreOptions& options);

// The options that open_store(url) uses for `url` (exactly, or a URL below it:
// "s3://b/x.zarr" covers "s3://b/x.zarr/t2m") from now on, in this process,
// so that every later open of the store (a member, a reopen) finds them.
void set_store_options(const std::string& url, StoreOptions options);

}  // namespace zarrgpu
