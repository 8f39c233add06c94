#include <gtest/gtest.h>

#include "zarrgpu/device.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

TEST(Device, ParsesAndPrints) {
  EXPECT_EQ(Device::parse("cpu"), Device::cpu());
  EXPECT_EQ(Device::parse("cuda"), Device::cuda(0));
  EXPECT_EQ(Device::parse("cuda:3"), Device::cuda(3));
  EXPECT_EQ(Device::cuda(2).to_string(), "cuda:2");
  EXPECT_EQ(Device::cpu().to_string(), "cpu");
  EXPECT_EQ(Device::parse(Device::cuda(7).to_string()), Device::cuda(7));
}

TEST(Device, RejectsMalformed) {
  for (const char* s : {"", "gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda1", "CPU", "cuda:99999999999"}) {
    try {
      Device::parse(s);
      FAIL() << s;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << s;
    }
  }
}

TEST(Device, CudaAvailableMatchesBuild) {
#if !defined(ZARRGPU_HAVE_CUDA)
  EXPECT_FALSE(cuda_available());
#else
  (void)cuda_available();  // either answer; it must not throw or leave an error behind
  SUCCEED();
#endif
}

}  // namespace
}  // namespace zarrgpu
