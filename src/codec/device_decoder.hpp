// What a codec can do on the GPU, declared on the host: the device read path
// asks a codec object for these forms (codec.hpp) and never looks at names.
//
//  - BatchedDeviceDecoder: a compressor's batched decoder, in the shape of
//    nvCOMP's batched API: the temp size for a batch, then one call that
//    enqueues the decoding of N chunks on a stream (device arrays of
//    pointers and sizes, no host synchronisation, no allocation) and leaves
//    a decoded size and a status per chunk in device memory.
//    It also says when it is worth using: the Config setting that governs it
//    and, under `auto`, which batches it should take from CPU threads; and
//    which statuses hand a chunk back to CPU threads (needs_host).
//  - DeviceBytesStep: a bytes-to-bytes decode that keeps the size
//    (numcodecs.shuffle), batched over chunks of one size, out of place.
//  - DeviceArrayStep: an array-to-array decode done in place on the
//    decoded elements (integer numcodecs.delta), batched.
// Placement folds in two more forms without a kernel of their own: an
// array-to-bytes codec whose decode is a byte swap (`bytes`,
// ArrayToBytesCodec::device_swap) and an array-to-array codec whose decode
// only reorders axes (`transpose`, ArrayToArrayCodec::decoded_strides).
//
// No CUDA header here: a stream is CUDA's own opaque type (cudaStream_t is
// `CUstream_st*`), so the CPU-only build compiles every codec, and the host
// tests check which codec offers which form. In a build without CUDA a form
// is still offered (the description is the same) but its calls throw:
// nothing reads into device memory there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "zarrgpu/config.hpp"

struct CUstream_st;

namespace zarrgpu::codec {

using DeviceStream = CUstream_st*;  // == cudaStream_t

// The most decoder scratch any chunk of a batch needs, measured on the host
// from the stored bytes (LZ77 formats: literal bytes and sequences); when
// unknown (bytes never on the host, or a decoder that does not measure) the
// decoder lays out the worst case of the chunk bound.
struct DeviceChunkNeeds {
  bool known = false;
  std::uint64_t literal_bytes = 0, sequences = 0;
  // A batch's needs: start from {true} and add each chunk's.
  void add(const DeviceChunkNeeds& chunk) {
    known = known && chunk.known;
    if (chunk.literal_bytes > literal_bytes) literal_bytes = chunk.literal_bytes;
    if (chunk.sequences > sequences) sequences = chunk.sequences;
  }
};

// One batch for BatchedDeviceDecoder::decode_async. Every pointer is to
// device memory, arrays of `chunks` entries.
struct DeviceBatch {
  const void* const* in_ptrs = nullptr;
  const std::size_t* in_sizes = nullptr;
  void* const* out_ptrs = nullptr;
  const std::size_t* out_capacities = nullptr;
  std::size_t* out_sizes = nullptr;     // written: each chunk's decoded size
  std::uint32_t* statuses = nullptr;    // written: 0 = decoded, else status_name()
  std::size_t chunks = 0;
  std::size_t max_decoded_bytes = 0;    // a bound on every chunk's decoded size
  // Scratch the decoder may lay out for one wave of chunks; a batch that
  // needs more is decoded wave after wave. As given to temp_bytes().
  std::size_t temp_budget = 0;
  DeviceChunkNeeds needs;               // as given to temp_bytes()
  bool verify_checksum = true;          // where the format carries one
};

// What a read has to decode with: the GPU's multiprocessors and the CPU
// threads that would decode instead.
struct DecodeResources {
  unsigned gpu_sms = 0;
  unsigned cpu_threads = 0;
};

// The batch size from which the rules of the batched GPU decoders (zstd,
// lz4, blosc: their *_device_choice.hpp) send a batch to the GPU: the
// smaller of `per_sm` units per SM and `per_cpu_thread` per CPU thread
// (either side may set it), counts of 0 taken as 1, never below 1.
inline std::size_t device_threshold(std::size_t per_sm, std::size_t per_cpu_thread, const DecodeResources& with) noexcept {
  const std::size_t by_gpu = per_sm * (with.gpu_sms ? with.gpu_sms : 1);
  const std::size_t by_cpu = per_cpu_thread * (with.cpu_threads ? with.cpu_threads : 1);
  const std::size_t t = by_gpu < by_cpu ? by_gpu : by_cpu;
  return t ? t : 1;
}

// device_threshold's terms in words: "min(16 x 132 SMs, 128 x 17 CPU threads)".
inline std::string describe_threshold(std::size_t per_sm, std::size_t per_cpu_thread, const DecodeResources& with) {
  return "min(" + std::to_string(per_sm) + " x " + std::to_string(with.gpu_sms) + " SMs, " +
         std::to_string(per_cpu_thread) + " x " + std::to_string(with.cpu_threads) + " CPU threads)";
}

// A rule the user forced (cpu or gpu; not auto), as the read report says it:
// "CPU threads (zstd_decoder=cpu)", "GPU (zstd_decoder=gpu)".
inline std::string describe_forced(DecoderChoice choice, const char* setting) {
  return std::string(choice == DecoderChoice::gpu ? "GPU (" : "CPU threads (") + setting + "=" +
         (choice == DecoderChoice::gpu ? "gpu" : "cpu") + ")";
}

class BatchedDeviceDecoder {
 public:
  virtual ~BatchedDeviceDecoder() = default;
  // The user's choice for this decoder (Config): cpu = never, gpu = every
  // batch, auto = the batches prefers_device() takes.
  virtual DecoderChoice choice() const { return DecoderChoice::auto_; }
  // Under auto: whether a batch of `chunks` chunks (present ones) of
  // `max_decoded_bytes` each decodes faster here than with the codec's CPU
  // decode on `with.cpu_threads` threads.
  virtual bool prefers_device(std::size_t /*chunks*/, std::size_t /*max_decoded_bytes*/,
                              const DecodeResources& /*with*/) const {
    return true;
  }
  // The choice in force, in words, for the read's report.
  virtual std::string describe_choice(const DecodeResources& with) const = 0;
  // The scratch a batch may lay out (DeviceBatch::temp_budget) when Config
  // sets none, given the read's decoded scratch per batch.
  virtual std::size_t default_temp_budget(std::size_t decoded_scratch_bytes) const { return decoded_scratch_bytes; }
  // Device scratch decode_async needs for such a batch.
  virtual std::size_t temp_bytes(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t temp_budget,
                                 const DeviceChunkNeeds& needs) const = 0;
  // The needs of one chunk stored in `stored` (host memory); unknown by default.
  virtual DeviceChunkNeeds measure(std::span<const std::byte> /*stored*/, std::size_t /*max_decoded_bytes*/) const {
    return {};
  }
  // Whether `temp_budget` holds the worst case of `chunks` chunks in one wave
  // (then measuring buys nothing): the scratch of the whole batch asked with
  // no budget is within it. One chunk always fits, as a wave holds at least
  // one chunk whatever the budget.
  bool whole_batch_fits(std::size_t chunks, std::size_t max_decoded_bytes, std::size_t temp_budget) const {
    return chunks <= 1 ||
           temp_bytes(chunks, max_decoded_bytes, std::numeric_limits<std::size_t>::max(), {}) <= temp_budget;
  }
  // Enqueues the batch on `stream`. Throws Error(device) when a launch fails;
  // bad data shows only in the statuses.
  virtual void decode_async(const DeviceBatch& batch, void* temp, std::size_t temp_bytes,
                            DeviceStream stream) const = 0;
  // A status value in words, for errors.
  virtual std::string status_name(std::uint32_t status) const = 0;
  // Whether a chunk that ended with `status` is outside what this decoder
  // does rather than corrupt (a Blosc frame of zlib streams): the read then
  // decodes that chunk with the codec on CPU threads instead of failing.
  virtual bool needs_host(std::uint32_t /*status*/) const { return false; }
};

// One chunk of a DeviceBytesStep: byte offsets into the source and
// destination buffers given to the call.
struct DeviceBytesItem {
  std::uint64_t src_offset = 0;
  std::uint64_t dst_offset = 0;
  std::uint64_t bytes = 0;
};

class DeviceBytesStep {
 public:
  virtual ~DeviceBytesStep() = default;
  // `items` in device memory; `max_item_bytes` bounds every item's bytes;
  // src and dst must not overlap.
  virtual void decode_async(const DeviceBytesItem* items, std::uint32_t num_items, std::uint64_t max_item_bytes,
                            const std::byte* src, std::byte* dst, DeviceStream stream) const = 0;
};

// One chunk of a DeviceArrayStep: a byte offset into the buffer given to the
// call and the chunk's number of elements.
struct DeviceArrayItem {
  std::uint64_t offset = 0;
  std::uint64_t elements = 0;
};

class DeviceArrayStep {
 public:
  virtual ~DeviceArrayStep() = default;
  // In place, `items` in device memory. `load_swap` > 1: the elements are
  // still stored byte-swapped in units of that many bytes (the `bytes`
  // codec's order), and the step swaps them as it loads them, so a chunk is
  // touched once.
  virtual void decode_async(const DeviceArrayItem* items, std::uint32_t num_items, std::byte* data,
                            unsigned element_size, unsigned load_swap, DeviceStream stream) const = 0;
};

}  // namespace zarrgpu::codec
