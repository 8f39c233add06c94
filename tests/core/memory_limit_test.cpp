// The memory limit on allocations sized by the input (zarrgpu/memory_limit.hpp)
// and its error kind, resource_exhausted (issue 33).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "zarrgpu/config.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/memory_limit.hpp"

namespace zarrgpu {
namespace {

// Restores the settings at the end of a test.
class MemoryLimitTest : public ::testing::Test {
 protected:
  void TearDown() override { set_config(saved_); }
  Config saved_ = config();
};

TEST_F(MemoryLimitTest, TheMachineLimitIsAtMostRamPlusSwap) {
  struct sysinfo si {};
  ASSERT_EQ(sysinfo(&si), 0);
  const std::uint64_t ram_and_swap = (std::uint64_t(si.totalram) + si.totalswap) * si.mem_unit;
  EXPECT_GT(machine_memory_limit(), 0u);
  EXPECT_LE(machine_memory_limit(), ram_and_swap);
  Config c = config();
  c.memory_limit = 0;
  set_config(c);
  EXPECT_EQ(memory_limit(), machine_memory_limit());
}

TEST_F(MemoryLimitTest, ASizeBeyondTheLimitIsResourceExhaustedWithItsContext) {
  EXPECT_NO_THROW(check_allocation(machine_memory_limit(), "a chunk"));
  try {
    check_allocation(std::uint64_t(1) << 62, "decoding the chunk", {"a", "a/c/0", "", "memory://"});
    FAIL() << "2^62 bytes passed the check";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::resource_exhausted);
    EXPECT_EQ(e.context().chunk_key, "a/c/0");
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("resource exhausted (store 'memory://', array 'a', chunk 'a/c/0'): decoding the chunk needs "
                      "4611686018427387904 bytes, more than the memory limit of ", 0), 0u) << m;
  }
}

TEST_F(MemoryLimitTest, TheSettingLowersTheLimitButNeverRaisesIt) {
  Config c = config();
  c.memory_limit = 1 << 20;
  set_config(c);
  EXPECT_EQ(memory_limit(), 1u << 20);
  EXPECT_NO_THROW(check_allocation(1 << 20, "x"));
  try {
    check_allocation((1 << 20) + 1, "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::resource_exhausted);
    EXPECT_NE(std::string(e.what()).find("ZARRGPU_MEMORY_LIMIT"), std::string::npos) << e.what();
  }
  c.memory_limit = ~std::uint64_t(0);
  set_config(c);
  EXPECT_EQ(memory_limit(), machine_memory_limit());
}

// The kernel compares each new mapping with RLIMIT_AS less what the process
// has mapped already: a size within the limit but beyond what is left fails
// to allocate (mutation fuzzing found it: a chunk of 8 GiB less 4 bytes under
// an 8 GiB RLIMIT_AS was "out of memory" after the check had passed it), so
// the check refuses it first. Run in a child: the rlimit is the child's alone.
TEST_F(MemoryLimitTest, ASizeWithinRlimitAsButBeyondWhatIsLeftOfItIsResourceExhausted) {
  Config c = config();
  c.memory_limit = 0;
  set_config(c);
  std::uint64_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  struct sysinfo si {};
  ASSERT_EQ(sysinfo(&si), 0);
  if (pages * std::uint64_t(::sysconf(_SC_PAGESIZE)) + (std::uint64_t(256) << 20) >
      (std::uint64_t(si.totalram) + si.totalswap) * si.mem_unit)
    GTEST_SKIP() << "this process maps more than the machine's memory (a sanitizer's shadow): RAM is the limit";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::uint64_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const std::uint64_t mapped = pages * std::uint64_t(::sysconf(_SC_PAGESIZE));
    const std::uint64_t limit = mapped + (std::uint64_t(256) << 20);
    const struct rlimit r {limit, limit};
    if (pages == 0 || ::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(2);
    if (machine_memory_limit() != limit) ::_exit(3);
    try {
      check_allocation(1 << 20, "a small chunk");  // well within what is left
    } catch (...) {
      ::_exit(4);
    }
    try {
      check_allocation(limit - 4096, "decoding the chunk", {"a", "a/c/0", "", "memory://"});
      ::_exit(5);  // passed: the allocation itself would fail
    } catch (const Error& e) {
      const std::string m = e.what();
      if (e.kind() != ErrorKind::resource_exhausted || e.context().chunk_key != "a/c/0") ::_exit(6);
      if (m.find("bytes left of the memory limit of " + std::to_string(limit) + " bytes (RLIMIT_AS, of which this "
                 "process holds ") == std::string::npos)
        ::_exit(7);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no rlimit set, 3: the limit ignores it, 4: a small size refused, "
                                       "5: the size beyond what is left passed, 6: wrong kind or context, "
                                       "7: the message does not say what is left";
}

TEST(ErrorKinds, ResourceExhaustedIsExitCodeTenAndNamedAsAbslDoes) {
  EXPECT_EQ(static_cast<int>(ErrorKind::resource_exhausted), 10);
  EXPECT_STREQ(to_string(ErrorKind::resource_exhausted), "resource exhausted");
}

}  // namespace
}  // namespace zarrgpu
