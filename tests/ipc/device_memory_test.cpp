// Device memory: without CUDA every device export and import is
// Error(device); on a GPU, another process's export (legacy handle and VMM fd)
// imports with its values, and oversized, stale and forged descriptors fail
// cleanly (these skip without a GPU).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#include "ipc/unix_socket.hpp"

#include "zarrgpu/error.hpp"
#include "zarrgpu/ipc.hpp"

namespace zarrgpu::ipc {
namespace {

TEST(IpcDeviceMemory, WithoutCudaEveryUseIsADeviceError) {
  if (cuda_available()) GTEST_SKIP() << "a GPU is present";
  auto kind = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::internal;
  };
  EXPECT_EQ(kind([] { SharedMemory::create_device(64, Device::cuda(0), false); }), ErrorKind::device);
  EXPECT_EQ(kind([] { SharedMemory::create_device(64, Device::cuda(0), true); }), ErrorKind::device);
  EXPECT_EQ(kind([] { device_uuid(Device::cuda(0)); }), ErrorKind::device);
  Descriptor d;
  d.shape = {4};
  d.strides = {4};
  d.allocation_size = 16;
  d.device = Device::cuda(0);
  d.device_uuid = "GPU-0123abcd-0123-4567-89ab-0123456789ab";
  d.handle_kind = HandleKind::cuda_ipc;
  d.handle = std::string(128, '0');
  EXPECT_EQ(kind([&] { SharedMemory::open(d); }), ErrorKind::device);
}

}  // namespace
}  // namespace zarrgpu::ipc

// ---- on a GPU: another process exports, this one imports -----------------
// CUDA forbids opening a handle in the process that exported it, and CUDA is
// unusable in a child forked after the parent initialised it (the GPU-present
// check does): the exporter is a fresh process, this test binary re-executed
// (fork then exec at once) to run only the disabled exporter test below, with
// its socket named by an environment variable.

namespace zarrgpu::ipc {
namespace {

// The child: exports 20 floats 0..19 on cuda:0 (VMM fd or legacy handle),
// sends the descriptor (and fd), waits for the parent's word, exits.
[[noreturn]] void export_child(int socket, bool vmm) {
  int status = 1;
  try {
    SharedMemory m = SharedMemory::create_device(80, Device::cuda(0), vmm);
    std::array<float, 20> v{};
    for (int i = 0; i < 20; ++i) v[i] = float(i);
    m.copy_in(0, v.data(), sizeof v);
    const std::string text = to_json(m.describe(DataType::float32, {2, 5}, 40, {}, /*record_event=*/true));
    std::vector<int> fds;
    if (m.fd() >= 0) fds.push_back(m.fd());
    send_frame(socket, text, fds);
    std::vector<FileDescriptor> none;
    receive_frame(socket, none);  // the parent is done with the memory
    status = 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "export child: %s\n", e.what());
  }
  _exit(status);
}

constexpr const char* kExporterVariable = "ZARRGPU_TEST_IPC_EXPORTER";  // "<socket fd> <vmm 0|1>"

// Runs only when re-executed by the test below (disabled tests never run otherwise).
TEST(DISABLED_IpcDeviceMemoryExporter, ExportsForTheParent) {
  const char* spec = std::getenv(kExporterVariable);
  if (!spec) GTEST_SKIP() << "runs only as the exporter of IpcDeviceMemoryAcrossProcesses";
  int socket = -1, vmm = 0;
  ASSERT_EQ(std::sscanf(spec, "%d %d", &socket, &vmm), 2) << spec;
  export_child(socket, vmm != 0);
}

// Starts this binary afresh as the exporter, holding `socket` (made
// inheritable in the child only); every string is built before the fork, so
// the child between fork and exec calls async-signal-safe functions only.
pid_t spawn_exporter(int socket, bool vmm) {
  std::vector<std::string> strings = {"/proc/self/exe", "--gtest_also_run_disabled_tests",
                                      "--gtest_filter=DISABLED_IpcDeviceMemoryExporter.ExportsForTheParent",
                                      std::string(kExporterVariable) + "=" + std::to_string(socket) + (vmm ? " 1" : " 0")};
  std::vector<char*> argv, envp;
  for (int i = 0; i < 3; ++i) argv.push_back(strings[i].data());
  argv.push_back(nullptr);
  const std::string prefix = std::string(kExporterVariable) + "=";
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) envp.push_back(*e);
  envp.push_back(strings[3].data());
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (fcntl(socket, F_SETFD, 0) != 0) _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

class IpcDeviceMemoryAcrossProcesses : public ::testing::TestWithParam<bool> {};

TEST_P(IpcDeviceMemoryAcrossProcesses, ImportSeesTheExportersValues) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU";
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  const pid_t pid = spawn_exporter(sv[1], GetParam());
  ASSERT_GE(pid, 0);
  close(sv[1]);
  FileDescriptor socket(sv[0]);
  std::vector<FileDescriptor> fds;
  auto text = receive_frame(socket.get(), fds);
  ASSERT_TRUE(text.has_value());
  const Descriptor d = parse_descriptor(*text);
  EXPECT_EQ(d.handle_kind, GetParam() ? HandleKind::fd : HandleKind::cuda_ipc);
  EXPECT_EQ(d.device_uuid, device_uuid(Device::cuda(0)));
  EXPECT_FALSE(d.event.empty());
  const int fd = fds.empty() ? -1 : fds[0].get();
  {
    SharedMemory in = SharedMemory::open(d, fd);
    std::array<float, 10> row{};
    in.copy_out(d.byte_offset, row.data(), sizeof row);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(row[i], float(10 + i));
  }
  {
    // A descriptor claiming more than the allocation holds is refused (opened
    // after the import above is closed: CUDA may refuse a handle open twice).
    Descriptor bigger = d;
    bigger.allocation_size = d.allocation_size * 1024;
    bigger.shape = {bigger.allocation_size / 4};
    bigger.strides = {4};
    bigger.byte_offset = 0;
    try {
      SharedMemory::open(bigger, fd);
      ADD_FAILURE() << "an oversized descriptor opened";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument) << e.what();
    }
  }
  send_frame(socket.get(), "done");
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (!GetParam()) {
    // The exporter is gone: its handle is stale and fails cleanly.
    try {
      SharedMemory::open(d);
      ADD_FAILURE() << "a stale handle opened";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::not_found) << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(LegacyAndVmm, IpcDeviceMemoryAcrossProcesses, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "vmm_fd" : "cuda_ipc"; });

TEST(IpcDeviceMemory, ForgedHandleFailsCleanly) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU";
  Descriptor d;
  d.shape = {4};
  d.strides = {4};
  d.allocation_size = 16;
  d.device = Device::cuda(0);
  d.device_uuid = device_uuid(Device::cuda(0));
  d.handle_kind = HandleKind::cuda_ipc;
  d.handle = std::string(128, '7');
  try {
    SharedMemory::open(d);
    ADD_FAILURE() << "a forged handle opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found) << e.what();
  }
  d.device_uuid = "GPU-00000000-0000-0000-0000-000000000000";  // no such device
  try {
    SharedMemory::open(d);
    ADD_FAILURE() << "an unknown device opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found) << e.what();
  }
}

}  // namespace
}  // namespace zarrgpu::ipc
