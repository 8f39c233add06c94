// One chunk (or inner chunk of a shard) of a device read: where its stored
// bytes are and where its selected region goes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/plan.hpp"
#include "store/stored_value.hpp"

namespace zarrgpu::engine::device_read {

struct ReadItem {
  ChunkPlan chunk;          // the mapping onto the output
  std::string key;          // store key holding the bytes (the shard's, for inner chunks)
  std::string name;         // for messages: the key, or "key[inner coordinates]"
  std::uint64_t offset = 0; // byte range within `key`
  std::uint64_t length = 0;
  bool missing = false;     // not stored: its region takes the fill value
  std::uint8_t chain = 0;   // 0: the array's codec chain, 1: the shard's inner chain
  // Inner chunks: the shard as opened to read its index. Their bytes are read
  // from it, so a shard replaced meanwhile is read in one version.
  std::shared_ptr<const store::StoredValue> shard;
};

}  // namespace zarrgpu::engine::device_read
