// Packing ReadItems into batches, and the byte layout of one batch in its
// pinned slot and its device buffer. Host code (no CUDA): CI tests it.
//
// Pinned slot:   [descriptors | GPU items' stored bytes | CPU items' decoded bytes] [CPU items' stored bytes]
//                 <------------------ copied to the device in one transfer ------>   (host only)
// Device buffer: [copy of the pinned prefix | GDS reads | decode scratch (decoder out, bytes step out, decoder results)]
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/device_read/device_chain.hpp"
#include "engine/device_read/read_item.hpp"

namespace zarrgpu::engine::device_read {

inline constexpr std::uint64_t kAlign = 256;
inline constexpr std::uint64_t kCoalesceGap = 64 * 1024;  // read through gaps up to this between neighbours
inline constexpr std::size_t kMaxBatchItems = std::size_t{1} << 18;

constexpr std::uint64_t align_up(std::uint64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// Descriptor bytes per item (a PlaceBox, the decoder's pointer/size arrays,
// a device bytes step's and array step's items).
std::uint64_t descriptor_bytes_per_item();

struct BatchLimits {
  std::uint64_t pinned_bytes = 0;  // the slot
  std::uint64_t device_bytes = 0;  // GDS reads + decode scratch
  bool gds = false;                // GPU items read by cuFile into device memory
};

// Where one item's bytes go. Offsets: `pinned_in` into the pinned slot;
// `device_in`, `decoded` into the device buffer; ~0 when unused.
struct ItemPlacement {
  static constexpr std::uint64_t none = ~std::uint64_t{0};
  std::uint64_t pinned_in = none;   // stored bytes land here (posix reads)
  std::uint64_t device_in = none;   // stored bytes on the device (copied, or a GDS read)
  std::uint64_t cpu_out = none;     // CPU decode output in the pinned slot (= its device offset)
  std::uint64_t decoder_out = none; // the batched decoder's output in scratch
  std::uint64_t decoded = none;     // what placement reads (device offset)
  std::size_t group = 0;            // read group (coalesced neighbours)
};

struct ReadGroup {
  std::size_t first = 0, last = 0;  // items [first, last]
  std::uint64_t offset = 0, length = 0;  // the byte range of items[first].key
  std::uint64_t pinned = ItemPlacement::none;  // posix: where it lands
  std::uint64_t device = ItemPlacement::none;  // gds: where it lands
};

struct BatchLayout {
  std::vector<ItemPlacement> items;
  std::vector<ReadGroup> groups;   // only present items
  std::uint64_t descriptors = 0;   // bytes at the start of the pinned slot
  std::uint64_t copy_bytes = 0;    // pinned prefix copied to the device
  std::uint64_t pinned_bytes = 0;  // whole pinned use
  std::uint64_t gds_offset = 0;    // device offset of the GDS region
  std::uint64_t scratch_offset = 0;
  std::uint64_t decoder_sizes = 0, decoder_statuses = 0;  // device offsets of the decoder's results
  std::uint64_t device_bytes = 0;  // whole device use
  std::size_t decoder_items = 0, bytes_step_items = 0, array_step_items = 0;
  std::uint64_t bytes_read = 0;    // including coalescing gaps
};

// Pops items from `pending` into a batch: as many as fit the limits, at least one.
std::vector<ReadItem> take_batch(std::deque<ReadItem>& pending, const DeviceChain& chain, const BatchLimits& limits);

BatchLayout lay_out(const std::vector<ReadItem>& items, const DeviceChain& chain, bool gds);

}  // namespace zarrgpu::engine::device_read
