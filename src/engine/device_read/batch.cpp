#include "engine/device_read/batch.hpp"

#include "gpu/place_box.hpp"

namespace zarrgpu::engine::device_read {
namespace {

using Mode = DeviceChain::Mode;

// CPU-decoded neighbours in one key are read with one pread (GPU items keep
// their own aligned reads: placement and the decoder read them in place).
bool coalesces(const ReadItem& prev, const ReadItem& it, const DeviceChain& chain) {
  return chain.mode != Mode::gpu && !prev.missing && !it.missing && prev.key == it.key &&
         prev.shard == it.shard &&
         it.offset >= prev.offset + prev.length && it.offset - (prev.offset + prev.length) <= kCoalesceGap;
}

struct Cost {
  std::uint64_t pinned = 0, device = 0;
};

Cost cost(const ReadItem* prev, const ReadItem& it, const DeviceChain& chain, bool gds) {
  Cost c;
  c.pinned = descriptor_bytes_per_item();
  if (it.missing) return c;
  if (chain.mode == Mode::gpu) {
    if (gds) c.device += align_up(it.length);
    else c.pinned += align_up(it.length);
    if (chain.decoder) c.device += align_up(chain.decoded_bytes) * (chain.bytes_step ? 2 : 1) + 16;
  } else {
    c.pinned += align_up(chain.decoded_bytes);
    c.pinned += (prev && coalesces(*prev, it, chain)) ? it.offset + it.length - (prev->offset + prev->length)
                                                      : align_up(it.length);
  }
  return c;
}

}  // namespace

std::uint64_t descriptor_bytes_per_item() {
  return sizeof(gpu::PlaceBox) + 4 * sizeof(std::uint64_t) + sizeof(codec::DeviceBytesItem) + sizeof(codec::DeviceArrayItem);
}

std::vector<ReadItem> take_batch(std::deque<ReadItem>& pending, const DeviceChain& chain, const BatchLimits& limits) {
  std::vector<ReadItem> batch;
  Cost total;
  total.pinned = 4 * kAlign;  // alignment of the regions
  while (!pending.empty() && batch.size() < kMaxBatchItems) {
    const Cost c = cost(batch.empty() ? nullptr : &batch.back(), pending.front(), chain, limits.gds);
    if (!batch.empty() && (total.pinned + c.pinned > limits.pinned_bytes || total.device + c.device > limits.device_bytes)) break;
    total.pinned += c.pinned;
    total.device += c.device;
    batch.push_back(std::move(pending.front()));
    pending.pop_front();
  }
  return batch;
}

BatchLayout lay_out(const std::vector<ReadItem>& items, const DeviceChain& chain, bool gds) {
  BatchLayout L;
  L.items.resize(items.size());
  // + 7 x 16: each of the seven descriptor arrays starts 16-byte aligned.
  L.descriptors = align_up(items.size() * descriptor_bytes_per_item() + 7 * 16);
  const bool gpu_mode = chain.mode == Mode::gpu;
  std::uint64_t pinned = L.descriptors;
  // Copied region: GPU items' stored bytes (posix), then CPU outputs.
  if (gpu_mode && !gds) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].missing) continue;
      L.items[i].pinned_in = pinned;
      L.items[i].device_in = pinned;
      pinned += align_up(items[i].length);
    }
  }
  if (!gpu_mode) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].missing) continue;
      L.items[i].cpu_out = pinned;
      L.items[i].decoded = pinned;
      pinned += align_up(chain.decoded_bytes);
    }
  }
  L.copy_bytes = pinned;
  // Host-only region: CPU items' stored bytes, coalesced.
  if (!gpu_mode) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].missing) continue;
      if (!L.groups.empty() && L.groups.back().last + 1 == i && coalesces(items[i - 1], items[i], chain)) {
        ReadGroup& g = L.groups.back();
        g.last = i;
        const std::uint64_t end = items[i].offset + items[i].length;
        pinned += end - (g.offset + g.length);
        g.length = end - g.offset;
      } else {
        pinned = align_up(pinned);
        L.groups.push_back(ReadGroup{i, i, items[i].offset, items[i].length, pinned, ItemPlacement::none});
        pinned += items[i].length;
      }
      L.items[i].group = L.groups.size() - 1;
      L.items[i].pinned_in = L.groups.back().pinned + (items[i].offset - L.groups.back().offset);
    }
  }
  L.pinned_bytes = align_up(pinned);

  std::uint64_t device = align_up(L.copy_bytes);
  L.gds_offset = device;
  if (gpu_mode) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].missing) continue;
      if (gds) {
        L.items[i].device_in = device;
        device += align_up(items[i].length);
      }
      L.groups.push_back(ReadGroup{i, i, items[i].offset, items[i].length, L.items[i].pinned_in,
                                   gds ? L.items[i].device_in : ItemPlacement::none});
      L.items[i].group = L.groups.size() - 1;
    }
  }
  L.scratch_offset = device;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].missing || !gpu_mode) continue;
    ItemPlacement& p = L.items[i];
    if (chain.decoder) {
      p.decoder_out = device;
      device += align_up(chain.decoded_bytes);
      ++L.decoder_items;
      if (chain.bytes_step) {
        p.decoded = device;
        device += align_up(chain.decoded_bytes);
        ++L.bytes_step_items;
      } else {
        p.decoded = p.decoder_out;
      }
    } else {
      p.decoded = p.device_in;
    }
  }
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!items[i].missing && chain.array_step) ++L.array_step_items;
  L.decoder_sizes = device;
  device += align_up(L.decoder_items * sizeof(std::uint64_t));
  L.decoder_statuses = device;
  device += align_up(L.decoder_items * sizeof(std::uint32_t));
  L.device_bytes = device;
  for (const ReadGroup& g : L.groups) L.bytes_read += g.length;
  return L;
}

}  // namespace zarrgpu::engine::device_read
