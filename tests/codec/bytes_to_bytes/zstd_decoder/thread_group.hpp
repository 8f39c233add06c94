// A stand-in for a warp in host tests: kSize host threads, the group's
// ranks, that meet at every sync() (same ranks, same barriers, same
// shuffles as gpu/warp_group.cuh's WarpGroup).
#pragma once

#include <barrier>
#include <cstdint>
#include <thread>
#include <vector>

namespace zarrgpu::zstd::testing {

// kSize host threads that meet at every sync(), sharing one scratch.
template <uint32_t N>
struct ThreadGroup {
  static constexpr uint32_t kSize = N;
  struct Shared {
    std::barrier<> bar{N};
    uint64_t slot[N] = {};
  };
  uint32_t r;
  Shared* sh;
  uint32_t rank() const { return r; }
  void sync() const { sh->bar.arrive_and_wait(); }
  // Rank src's v, as a warp shuffle: every rank calls it together.
  uint64_t shuffle64(uint64_t v, uint32_t src) const {
    sh->slot[r] = v;
    sync();
    const uint64_t x = sh->slot[src];
    sync();
    return x;
  }
  uint32_t ballot(bool p) const {
    sh->slot[r] = p ? 1 : 0;
    sync();
    uint32_t m = 0;
    for (uint32_t k = 0; k < N; ++k) m |= static_cast<uint32_t>(sh->slot[k]) << k;
    sync();
    return m;
  }
  bool any(bool p) const { return ballot(p) != 0; }
  // Bit k set when rank k's v equals this rank's, as __match_any_sync.
  uint32_t match_any(uint32_t v) const {
    sh->slot[r] = v;
    sync();
    uint32_t m = 0;
    for (uint32_t k = 0; k < N; ++k) m |= (static_cast<uint32_t>(sh->slot[k]) == v ? 1u : 0u) << k;
    sync();
    return m;
  }
  uint32_t broadcast(uint32_t v) const { return static_cast<uint32_t>(shuffle64(v, 0)); }
  uint32_t inclusive_sum(uint32_t v) const {
    sh->slot[r] = v;
    sync();
    uint64_t sum = 0;
    for (uint32_t k = 0; k <= r; ++k) sum += sh->slot[k];
    sync();
    return static_cast<uint32_t>(sum);
  }
};

// Runs f(group) on N threads, one per rank, and waits for all of them.
template <uint32_t N, class F>
void run_group(F f) {
  typename ThreadGroup<N>::Shared sh;
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < N; ++r) threads.emplace_back([&, r] { f(ThreadGroup<N>{r, &sh}); });
  for (auto& t : threads) t.join();
}

}  // namespace zarrgpu::zstd::testing
