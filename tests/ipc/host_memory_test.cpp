// Host memory shared as a sealed memfd: another process sees the exporter's
// bytes without a copy; an fd that is not a sealed memfd of the described
// size, or a read-only one, is refused or mapped read-only.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zarrgpu/error.hpp"
#include "zarrgpu/ipc.hpp"

namespace zarrgpu::ipc {
namespace {

ErrorKind open_error(const Descriptor& d, int fd) {
  try {
    SharedMemory::open(d, fd);
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "opened";
  return ErrorKind::internal;
}

TEST(IpcHostMemory, AnotherProcessSharesTheBytes) {
  SharedMemory m = SharedMemory::create_host(80);
  ASSERT_GE(m.fd(), 0);
  auto* values = static_cast<float*>(m.data());
  for (int i = 0; i < 20; ++i) values[i] = float(i);
  // The child sees rows 1..2 through the descriptor and the inherited fd, and writes one back.
  const std::string text = to_json(m.describe(DataType::float32, {2, 5}, 20));
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int status = 1;
    try {
      SharedMemory in = SharedMemory::open(parse_descriptor(text), m.fd());
      const Descriptor d = parse_descriptor(text);
      auto* row = reinterpret_cast<float*>(static_cast<std::byte*>(in.data()) + d.byte_offset);
      if (row[0] == 5.0f && row[9] == 14.0f) {
        row[0] = -1.0f;
        status = 0;
      }
    } catch (...) {
    }
    _exit(status);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(values[5], -1.0f);
}

TEST(IpcHostMemory, ReadOnlyFdMapsReadOnly) {
  SharedMemory m = SharedMemory::create_host(64);
  const int ro = m.reopen_read_only();
  SharedMemory in = SharedMemory::open(m.describe(DataType::uint8, {64}), ro);
  EXPECT_FALSE(in.writable());
  EXPECT_EQ(static_cast<const unsigned char*>(in.data())[0], 0);
  // Not even mmap itself can map it writable.
  EXPECT_EQ(mmap(nullptr, 64, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), MAP_FAILED);
  close(ro);
}

TEST(IpcHostMemory, ForgedFileDescriptorsAreRefused) {
  SharedMemory m = SharedMemory::create_host(64);
  const Descriptor d = m.describe(DataType::uint8, {64});
  EXPECT_EQ(open_error(d, -1), ErrorKind::invalid_argument);  // no fd
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  EXPECT_EQ(open_error(d, pipe_fds[0]), ErrorKind::invalid_argument);  // not a memfd
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  const int unsealed = memfd_create("unsealed", MFD_CLOEXEC);
  ASSERT_EQ(ftruncate(unsealed, 64), 0);
  EXPECT_EQ(open_error(d, unsealed), ErrorKind::invalid_argument);  // could shrink under the reader
  close(unsealed);
  Descriptor bigger = d;  // claims more than the memfd holds
  bigger.allocation_size = 4096;
  bigger.shape = {4096};
  EXPECT_EQ(open_error(bigger, m.fd()), ErrorKind::invalid_argument);
}

TEST(IpcHostMemory, SealsForbidResizing) {
  SharedMemory m = SharedMemory::create_host(64);
  EXPECT_NE(ftruncate(m.fd(), 0), 0);
  EXPECT_NE(ftruncate(m.fd(), 128), 0);
}

TEST(IpcHostMemory, EmptyAllocation) {
  SharedMemory m = SharedMemory::create_host(0);
  SharedMemory in = SharedMemory::open(m.describe(DataType::int32, {0}), m.fd());
  EXPECT_EQ(in.size(), 0u);
}

}  // namespace
}  // namespace zarrgpu::ipc
