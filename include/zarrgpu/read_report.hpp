// What a read did: how the bytes came, where each codec decoded, how much it
// moved and how long it took. Filled by Array::read when ReadOptions::report
// points at one, and kept per thread for last_read_report().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zarrgpu/device.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu {

// One codec of the chain that decoded the chunks (for a sharded array: the
// inner chunks' codecs, after sharding_indexed itself).
struct CodecReport {
  std::string codec;             // as the metadata names it: "zstd", "bytes", "numcodecs.shuffle"
  std::uint64_t cpu_chunks = 0;  // chunks it decoded on CPU threads
  std::uint64_t gpu_chunks = 0;  // chunks it decoded on the GPU
};

struct ReadReport {
  Device device;  // where the output is
  // How stored bytes were fetched: "store" (host reads: the store's own reads,
  // LocalStore's pread); device reads: "posix" (pread into the pinned staging
  // ring), "gds" or "gds-compat" (cuFile).
  std::string io_path;
  std::string io_detail;  // why that path (device reads)
  // The store: its kind ("file", "memory", "http", "s3", "gs": Store::kind) and
  // what it asked of its server while the read ran (HTTP and S3; zero for
  // local stores). A read of the same store object on another thread at the
  // same time is counted in both reports.
  std::string store;
  std::uint64_t requests = 0;       // requests sent, retries included
  std::uint64_t retries = 0;        // of those, repeats after a transient failure
  std::uint64_t bytes_fetched = 0;  // response body bytes received (coalescing gaps, failed attempts included)
  // Device reads of a chain whose compressor has a GPU decoder (zstd,
  // numcodecs.lz4, blosc): chunks it decoded on the GPU and on CPU threads,
  // the rule that chose, and chunks the GPU handed back to CPU threads and why.
  std::string decoder_detail;
  std::vector<CodecReport> codecs;
  std::uint64_t chunks = 0;          // chunks (inner chunks of shards) the selection touches
  std::uint64_t missing_chunks = 0;  // of those, absent from the store: read as the fill value
  std::uint64_t bytes_read = 0;      // stored bytes fetched (shard indexes included)
  std::uint64_t bytes_decoded = 0;   // decoded chunk bytes
  std::uint64_t bytes_out = 0;       // bytes of the selection
  double seconds = 0;                // wall time of the read
  double seconds_read_threads = 0;   // thread-seconds in store reads
  double seconds_decode_threads = 0; // thread-seconds decoding on CPU threads
};

// The report of the last Array::read on this thread (all zero before one).
ReadReport last_read_report();

}  // namespace zarrgpu
