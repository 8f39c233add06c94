// A stand-in for a warp in host tests: kSize lanes, the group's ranks, that
// meet at every sync() (same ranks, same barriers, same shuffles as
// gpu/warp_group.cuh's WarpGroup). The lanes run in turn on the calling
// thread, each as a fiber until its next sync(); a barrier is
// passed once every lane has reached it. Between two barriers the lanes run
// in a fresh shuffled order, so a lane that reads what another lane writes
// in the same phase (a race on the GPU) finds it written in some phases and
// not in others. One OS thread a lane instead made every barrier a trip
// through the scheduler: on a 2-core machine the suites took minutes.
#pragma once

#include <setjmp.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define ZARRGPU_TEST_FIBERS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZARRGPU_TEST_FIBERS_ASAN 1
#endif
#endif
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
// ASan must be told of every stack switch (its fake stacks, its view of
// which stack is live): sanitizer/common_interface_defs.h.
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace zarrgpu::zstd::testing {

// Runs `lanes` fibers on the calling thread, a pass over the live ones at a
// time, each until it yields (its group's sync()) or returns.
class LaneScheduler {
 public:
  using Body = void (*)(void* arg, uint32_t lane);
  static constexpr size_t kStackBytes = size_t{256} << 10;  // lazily committed; room for ASan's redzones
  static constexpr size_t kGuardBytes = 4096;

  LaneScheduler(uint32_t lanes, Body body, void* arg) : lanes_(lanes), body_(body), arg_(arg), lanes_jmp_(lanes), ctx_(lanes), started_(lanes, false),
                                                         stacks_(lanes, nullptr), done_(lanes, false) {}
  LaneScheduler(const LaneScheduler&) = delete;
  LaneScheduler& operator=(const LaneScheduler&) = delete;
  ~LaneScheduler() {
    for (void* s : stacks_) {
      if (!s) continue;
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
      // A lane's first frame never returns: its redzones would stay poisoned
      // for whatever maps these addresses next.
      __asan_unpoison_memory_region(static_cast<char*>(s) + kGuardBytes, kStackBytes - kGuardBytes);
#endif
      munmap(s, kStackBytes);
    }
  }

  void run() {
    for (uint32_t lane = 0; lane < lanes_; ++lane) {
      stacks_[lane] = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                           -1, 0);
      if (stacks_[lane] == MAP_FAILED) fail("no memory for a lane's stack");
      mprotect(stacks_[lane], kGuardBytes, PROT_NONE);  // a guard page: an overflow faults, never corrupts
      getcontext(&ctx_[lane]);
      ctx_[lane].uc_stack.ss_sp = stacks_[lane];
      ctx_[lane].uc_stack.ss_size = kStackBytes;
      ctx_[lane].uc_link = nullptr;
      makecontext(&ctx_[lane], &LaneScheduler::entry, 0);
      // setcontext needs no stack field past makecontext; left set, ASan's
      // interceptor clears the shadow of the whole stack (the annotations
      // below tell it of the stacks instead).
      ctx_[lane].uc_stack = stack_t{};
    }
    std::vector<uint32_t> order(lanes_);
    for (uint32_t lane = 0; lane < lanes_; ++lane) order[lane] = lane;
    uint32_t live = lanes_;
    while (live > 0) {
      for (uint32_t k = lanes_; k > 1; --k) std::swap(order[k - 1], order[next_random() % k]);
      for (const uint32_t lane : order)
        if (!done_[lane]) switch_to(lane);
      uint32_t still = 0;
      for (uint32_t lane = 0; lane < lanes_; ++lane) still += !done_[lane];
      // Some lanes returned while others wait at a barrier: threads would
      // wait for ever (and a warp's __syncwarp is undefined).
      if (still != 0 && still != live) fail("a lane returned while others wait at a sync()");
      live = still;
    }
  }

  // From lane `lane`: back to the scheduler until the next pass.
  void yield(uint32_t lane) {
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, main_bottom_, main_size_);
#endif
    if (_setjmp(lanes_jmp_[lane].at) == 0) _longjmp(main_jmp_, 1);
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  }

 private:
  [[noreturn]] static void fail(const char* why) {
    std::fprintf(stderr, "lockstep group: %s\n", why);
    std::abort();
  }

  uint32_t next_random() {  // xorshift32: the same orders in every run
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 17;
    rng_ ^= rng_ << 5;
    return rng_;
  }

  void switch_to(uint32_t lane) {
    LaneScheduler* const outer = starting_;
    const uint32_t outer_lane = starting_lane_;
    starting_ = this;
    starting_lane_ = lane;
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, stacks_[lane], kStackBytes);
#endif
    // A lane starts with setcontext (makecontext's stack), and switches
    // after that with _setjmp/_longjmp: swapcontext also saves and restores
    // the signal mask, a system call at every barrier of every lane.
    if (_setjmp(main_jmp_) == 0) {
      if (!started_[lane]) {
        started_[lane] = true;
        setcontext(&ctx_[lane]);
      }
      _longjmp(lanes_jmp_[lane].at, 1);
    }
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
    starting_ = outer;
    starting_lane_ = outer_lane;
  }

  // A lane's first frame: the scheduler and lane that switched to it.
  static void entry() {
    LaneScheduler* const s = starting_;
    const uint32_t lane = starting_lane_;
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &s->main_bottom_, &s->main_size_);
#endif
    s->body_(s->arg_, lane);
    s->done_[lane] = true;
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
    __sanitizer_start_switch_fiber(nullptr, s->main_bottom_, s->main_size_);  // this fiber ends
#endif
    _longjmp(s->main_jmp_, 1);
  }

  static inline thread_local LaneScheduler* starting_ = nullptr;
  static inline thread_local uint32_t starting_lane_ = 0;

  uint32_t lanes_;
  Body body_;
  void* arg_;
  struct JumpBuffer {
    jmp_buf at;
  };
  jmp_buf main_jmp_;
  std::vector<JumpBuffer> lanes_jmp_;
  std::vector<ucontext_t> ctx_;
  std::vector<bool> started_;
  std::vector<void*> stacks_;
  std::vector<bool> done_;
  uint32_t rng_ = 0x9E3779B9u;
#if defined(ZARRGPU_TEST_FIBERS_ASAN)
  const void* main_bottom_ = nullptr;
  size_t main_size_ = 0;
#endif
};

// kSize lanes that meet at every sync(), sharing one scratch.
template <uint32_t N>
struct LockstepGroup {
  static constexpr uint32_t kSize = N;
  struct Shared {
    LaneScheduler* lanes = nullptr;
    uint64_t slot[N] = {};
  };
  uint32_t r;
  Shared* sh;
  uint32_t rank() const { return r; }
  void sync() const { sh->lanes->yield(r); }
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

// Runs f(group) on N lanes, one per rank, and returns when all have.
template <uint32_t N, class F>
void run_group(F f) {
  typename LockstepGroup<N>::Shared sh;
  struct Arg {
    F* f;
    typename LockstepGroup<N>::Shared* sh;
  } arg{&f, &sh};
  LaneScheduler lanes(
      N, [](void* a, uint32_t lane) { (*static_cast<Arg*>(a)->f)(LockstepGroup<N>{lane, static_cast<Arg*>(a)->sh}); },
      &arg);
  sh.lanes = &lanes;
  lanes.run();
}

}  // namespace zarrgpu::zstd::testing
