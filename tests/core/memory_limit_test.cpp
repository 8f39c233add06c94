// The memory limit on allocations sized by the input (zarrgpu/memory_limit.hpp)
// and its error kind, resource_exhausted (issue 33).
#include <gtest/gtest.h>
#include <sys/sysinfo.h>

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

TEST(ErrorKinds, ResourceExhaustedIsExitCodeTenAndNamedAsAbslDoes) {
  EXPECT_EQ(static_cast<int>(ErrorKind::resource_exhausted), 10);
  EXPECT_STREQ(to_string(ErrorKind::resource_exhausted), "resource exhausted");
}

}  // namespace
}  // namespace zarrgpu
