// How a store's bytes reach device memory (store/device_reader.hpp): the
// store decides, and keys are checked like every other read.
#include <gtest/gtest.h>

#include <filesystem>

#include "store/device_reader.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu::store {
namespace {

namespace fs = std::filesystem;

TEST(DeviceReader, StoresWithoutTheCapabilityStageThroughPinnedMemory) {
  auto memory = make_memory_store();
  EXPECT_EQ(dynamic_cast<DeviceReader*>(memory.get()), nullptr);
  for (IoMode m : {IoMode::auto_, IoMode::posix, IoMode::gds, IoMode::gds_compat})
    EXPECT_EQ(device_read_path(*memory, m).path, IoPath::posix);
}

TEST(DeviceReader, LocalStoreReadsIntoDeviceMemoryOnlyWhenAsked) {
  const fs::path dir = fs::temp_directory_path() / ("zarrgpu_device_reader_" + std::to_string(::getpid()));
  auto local = open_local_store(dir.string(), /*create=*/true);
  auto* reader = dynamic_cast<DeviceReader*>(local.get());
  ASSERT_NE(reader, nullptr);
  const DeviceReadPath posix = device_read_path(*local, IoMode::posix);
  EXPECT_EQ(posix.path, IoPath::posix);
  EXPECT_FALSE(posix.why.empty());
  // auto never takes cuFile's compatibility mode: it is slower than the ring.
  EXPECT_NE(device_read_path(*local, IoMode::auto_).path, IoPath::gds_compat);
  // A key that leaves the store is refused before any file is opened.
  const DeviceReadInto escape{"../outside", 0, 1, nullptr};
  EXPECT_THROW(reader->read_into_device(std::span(&escape, 1)), Error);
  fs::remove_all(dir);
}

TEST(IoPath, ResolvesRequests) {
  // auto: GDS only when it is real; compatibility mode loses to the pinned ring.
  EXPECT_EQ(resolve_io_path(IoMode::auto_, true, true, true), IoPath::gds);
  EXPECT_EQ(resolve_io_path(IoMode::auto_, true, false, true), IoPath::posix);
  EXPECT_EQ(resolve_io_path(IoMode::gds, true, false, true), IoPath::gds_compat);
  EXPECT_EQ(resolve_io_path(IoMode::gds_compat, true, true, true), IoPath::gds_compat);
  EXPECT_EQ(resolve_io_path(IoMode::posix, true, true, true), IoPath::posix);
  // no cuFile, or not a local directory: posix whatever was asked.
  EXPECT_EQ(resolve_io_path(IoMode::gds, false, false, true), IoPath::posix);
  EXPECT_EQ(resolve_io_path(IoMode::gds, true, true, false), IoPath::posix);
  EXPECT_STREQ(to_string(IoPath::gds_compat), "gds-compat");
}

}  // namespace
}  // namespace zarrgpu::store
