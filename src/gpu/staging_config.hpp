// Sizes of the pinned staging ring and the device scratch a GPU read may use.
// Host code only (no CUDA), so CI tests it.
//
// From zarrgpu::Config (zarrgpu/config.hpp; environment variables in brackets):
//   staging_bytes [ZARRGPU_STAGING_BYTES]  bytes per pinned slot (default 256 MiB)
//   staging_slots [ZARRGPU_STAGING_SLOTS]  slots in the ring, 2..16 (default: 4 on a GPU of >= 32 GiB, else 3:
//                          fetch k+1 while k decodes and k-1 drains; a fourth batch in flight
//                          lets the decoder's latency-bound kernels of two batches share the SMs:
//                          the 8 GB zstd read 26.2 -> 28.5 GB/s on an H200, 5 slots 28.3, 8 slots 27.2)
//   scratch_bytes [ZARRGPU_SCRATCH_BYTES]  device bytes of decoded chunks per batch (default 2x the
//                          slot size); the GPU Zstd decoder's temp per slot is up to 6x this
//   read_piece_bytes [ZARRGPU_READ_PIECE_BYTES]  the largest pread into a slot of a chunk that decodes on the GPU
//                          (default 4 MiB): a batch's fetch ends with its slowest read, and
//                          26 reads of ~10 MB on 16 threads kept 4.5 busy on average; cold,
//                          the 8 GB zstd read then reached 80% of the disk's 16-reader rate
//                          (H200 machine, bench/results/read_profile.md, 2026-11-22)
#pragma once

#include <cstddef>
#include <cstdint>
#include "zarrgpu/config.hpp"

namespace zarrgpu::gpu {

struct StagingConfig {
  std::size_t slot_bytes = std::size_t{256} << 20;
  unsigned slots = 3;
  std::size_t scratch_bytes = std::size_t{512} << 20;
  std::size_t read_piece_bytes = std::size_t{4} << 20;
  // GPU decoder temp per slot; 0: the decoder's default_temp_budget() of
  // scratch_bytes (zstd: 6x, zstd_device_choice.hpp). Smaller: the decoder
  // runs a batch in more waves.
  std::size_t temp_bytes = 0;

  // Each slot holds up to slot_bytes of pinned host memory and, on the
  // device, its batch (slot + scratch) and the zstd decoder's temp (up to 6x
  // the scratch; ~2.5 GB for 26 frames of 16.6 MB): a fourth slot is worth it
  // only where memory is plentiful.
  static constexpr std::uint64_t kFourSlotDeviceBytes = std::uint64_t{32} << 30;
  static constexpr unsigned default_slots(std::uint64_t device_bytes) {
    return device_bytes >= kFourSlotDeviceBytes ? 4u : 3u;
  }

  // The settings of `config` for a GPU of device_bytes of memory (0: unknown,
  // the smaller defaults where `config` leaves the choice to the library).
  static StagingConfig from(const Config& config, std::uint64_t device_bytes = 0);

  // This configuration shrunk so that its device memory, over every slot the
  // batch (its copy of the slot, its decoded scratch) and the decoder's temp,
  // stays within `device_bytes` (a caller's budget, e.g. a training loader's):
  // 2 slots (fetch k+1 while k decodes and drains: a third would cut every
  // batch by a third, and small batches are what slows the GPU decoder), each
  // split 1 : 2 : 6 between the slot, the scratch and the temp (half the
  // default temp share: the decoder runs a batch in two waves rather than the
  // batches halving again), never below 1 MiB a part. A chunk larger than that
  // still reads, one to a batch: the floor is one chunk's stored bytes, decoded
  // bytes and temp per slot.
  StagingConfig within(std::uint64_t device_bytes) const;
  // Device bytes this configuration may hold: slots x (slot + scratch + temp).
  std::uint64_t device_footprint(std::size_t temp_per_scratch) const;
};

}  // namespace zarrgpu::gpu
