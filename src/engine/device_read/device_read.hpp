// Reads a selection of an array straight into GPU memory (issue 4).
//
//   plan -> windows of chunks (sizes / shard indexes) -> batches bounded by
//   the pinned staging slot and the device scratch -> parallel pread into the
//   pinned slot (neighbouring ranges of a shard coalesced), CPU decoding of
//   codecs without a GPU form into the same slot -> one host-to-device copy
//   per batch -> GPU decode (zstd, lz4, blosc, shuffle, delta) -> one fused placement
//   launch (scatter + transpose + byte order + fill of missing chunks).
// Batch k + 1 is fetched on the host while batch k runs on the GPU, in up to
// `slots` batches in flight (StagingConfig); memory stays bounded by the
// staging and scratch sizes whatever the size of the selection.
//
// Streams: the work runs on internal streams ordered after the work already
// queued on ReadOptions::cuda_stream (or the legacy default stream), and the
// caller's stream is made to wait for it (cudaStreamWaitEvent). The function
// then waits for its own streams (never the device), because it checks every
// chunk's decode status before returning: when it returns, the output is
// complete; when it throws, the output must be treated as garbage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "zarrgpu/array.hpp"

namespace zarrgpu::engine {

struct DeviceReadStats {
  std::uint64_t chunks = 0;           // chunks (inner chunks for sharded arrays) touched
  std::uint64_t missing_chunks = 0;   // filled with the fill value
  std::uint64_t gpu_decoded_chunks = 0;  // decoded on the GPU (a GPU compressor or none)
  std::uint64_t cpu_decoded_chunks = 0;  // bytes->bytes (or all) codecs on CPU threads
  // Chains with a batched device decoder (zstd, numcodecs.lz4, blosc): its
  // codec, chunks it decoded on the GPU / chunks decoded on CPU threads, as
  // the decoder chose per batch (BatchedDeviceDecoder::prefers_device;
  // ZARRGPU_GPU_ZSTD, ZARRGPU_GPU_LZ4, ZARRGPU_GPU_BLOSC = 0|1|auto), and of
  // the CPU ones, those the GPU decoder handed back (needs_host), with the
  // first such chunk's status.
  std::string decoder_codec;          // empty: no such decoder in the chain
  std::uint64_t decoder_gpu_chunks = 0;
  std::uint64_t decoder_cpu_chunks = 0;
  std::uint64_t decoder_returned_chunks = 0;
  std::string decoder_returned_why;
  std::uint64_t batches = 0;
  std::uint64_t bytes_read = 0;       // stored bytes fetched (including coalescing gaps)
  std::uint64_t bytes_decoded = 0;    // decoded chunk bytes
  std::uint64_t bytes_out = 0;        // bytes of the selection
  double seconds_total = 0;           // wall time of the call
  double seconds_io = 0;              // wall time of the host fetch stages (read + CPU decode)
  double seconds_read_threads = 0;    // thread-seconds in store reads
  double seconds_cpu_decode_threads = 0;  // thread-seconds in CPU decoding
  double seconds_h2d = 0;             // GPU time of the batch copies (events)
  double seconds_gpu_decode = 0;      // GPU time of the decoder, shuffle and delta
  double seconds_place = 0;           // GPU time of placement and fill
  std::string io_path;                // "posix", "gds" or "gds-compat"
  std::string io_detail;              // why (KvikIO-style: say which mode ran)
  std::string decoder_rule;           // the decoder's rule in force (describe_choice)

  // decoder_* in words for the read report, "" without a decoder:
  // "blosc: 12 chunks on the GPU, 0 on CPU threads (<rule>)[; 2 handed back ...]".
  std::string decoder_detail() const;
};

// `out` is device memory of `device` (or managed memory), aligned to the
// element size, exactly out_bytes = selection elements x element size.
// Throws Error(unsupported) in a build without CUDA, Error(device) without a GPU.
void read_to_device(const Array& array, const Selection& selection, void* out, std::size_t out_bytes, Device device,
                    const ReadOptions& options, DeviceReadStats* stats = nullptr);

// The statistics of the last read_to_device on this thread.
DeviceReadStats last_device_read_stats();

// Sets up what reads to `device` keep between them, before the first one:
// the pinned staging ring (ZARRGPU_STAGING_BYTES / _SLOTS) and the slots'
// streams. Pinning those takes ~0.5 s once per process (H200 machine): a
// training loader or a benchmark pays it at start, not in its first read.
// Device buffers still grow with the reads that need them. Errors as
// read_to_device: Error(invalid_argument) for a device that is not CUDA or
// does not exist, Error(device) without a GPU, Error(unsupported) without CUDA.
void prepare_device_read(Device device);

// Frees the pinned and device buffers kept between reads (they are reused:
// pinning hundreds of MiB costs more than a small read).
void release_device_read_buffers();

}  // namespace zarrgpu::engine
