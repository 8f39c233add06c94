// Unix domain sockets for the cache service (docs/ipc.md, "The cache
// service"): frames of a 4-byte little-endian length and a JSON payload, with
// file descriptors beside them (SCM_RIGHTS), the peer's credentials
// (SO_PEERCRED), and the user-only directory the socket lives in.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace zarrgpu::ipc {

// The largest frame either side accepts (requests and answers are small JSON).
inline constexpr std::size_t kMaxFrameBytes = 1 << 20;
// The most file descriptors one frame carries.
inline constexpr std::size_t kMaxFrameFds = 4;

// An owned file descriptor.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() { reset(); }
  FileDescriptor(FileDescriptor&& o) noexcept : fd_(o.release()) {}
  FileDescriptor& operator=(FileDescriptor&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  int get() const noexcept { return fd_; }
  int release() noexcept {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1) noexcept;
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Sends one frame and `fds` with it. Error(io) when the peer is gone.
void send_frame(int socket, std::string_view payload, std::span<const int> fds = {});
// Receives one frame and the descriptors that came with it (close-on-exec).
// nullopt: the peer closed the connection between frames. Error(io): closed
// mid-frame, a frame over `max_bytes` (its length is refused before anything is
// allocated), more than kMaxFrameFds descriptors, or a socket error.
std::optional<std::string> receive_frame(int socket, std::vector<FileDescriptor>& fds,
                                         std::size_t max_bytes = kMaxFrameBytes);

struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};
PeerCredentials peer_credentials(int socket);

// The default socket: $XDG_RUNTIME_DIR/zarrgpu/cache.sock; without
// XDG_RUNTIME_DIR, /tmp/zarrgpu-<uid>/cache.sock.
std::string default_socket_path();
// Creates the socket's directory (mode 0700) if missing, and checks that it is
// a directory, not a symlink, owned by this user, and that no one else may
// enter it. Error(invalid_argument) naming what is wrong.
void prepare_socket_directory(const std::string& socket_path);
// A listening socket at `path` (mode 0600). A stale socket file (nobody
// listening) is replaced; a live one is Error(invalid_argument): another
// service runs there.
FileDescriptor listen_unix(const std::string& path, int backlog = 128);
// Error(not_found) when no service listens at `path`.
FileDescriptor connect_unix(const std::string& path);

}  // namespace zarrgpu::ipc
