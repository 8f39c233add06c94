#include "ipc/unix_socket.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {
namespace {

std::string os_error(const std::string& what, int err = errno) { return what + ": " + std::strerror(err); }

sockaddr_un address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof a.sun_path)
    throw Error(ErrorKind::invalid_argument, "socket path \"" + path + "\" is empty or longer than " +
                                                 std::to_string(sizeof a.sun_path - 1) + " bytes");
  std::memcpy(a.sun_path, path.data(), path.size());
  return a;
}

// Reads exactly `n` bytes, collecting descriptors; false on EOF before the first byte.
bool receive_exactly(int socket, char* out, std::size_t n, std::vector<FileDescriptor>& fds, bool eof_ok) {
  std::size_t got = 0;
  while (got < n) {
    iovec iov{out + got, n - got};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFrameFds)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t r = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw Error(ErrorKind::io, os_error("receiving from the cache service socket"));
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        fds.emplace_back(fd);  // owned now, closed if the frame is refused
      }
    }
    if (msg.msg_flags & MSG_CTRUNC) throw Error(ErrorKind::io, "a frame came with more than " + std::to_string(kMaxFrameFds) + " file descriptors");
    if (fds.size() > kMaxFrameFds) throw Error(ErrorKind::io, "a frame came with too many file descriptors");
    if (r == 0) {
      if (got == 0 && eof_ok) return false;
      throw Error(ErrorKind::io, "the connection closed in the middle of a frame");
    }
    got += static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace

void FileDescriptor::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

void send_frame(int socket, std::string_view payload, std::span<const int> fds) {
  if (payload.size() > kMaxFrameBytes) throw Error(ErrorKind::invalid_argument, "frame over " + std::to_string(kMaxFrameBytes) + " bytes");
  if (fds.size() > kMaxFrameFds) throw Error(ErrorKind::invalid_argument, "too many file descriptors for one frame");
  unsigned char header[4];
  const auto n = static_cast<std::uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) header[i] = static_cast<unsigned char>(n >> (8 * i));
  std::size_t sent = 0;
  const std::size_t total = 4 + payload.size();
  bool first = true;
  while (sent < total) {
    iovec iov[2];
    int count = 0;
    if (sent < 4) iov[count++] = {header + sent, 4 - sent};
    const std::size_t body = sent > 4 ? sent - 4 : 0;
    if (body < payload.size()) iov[count++] = {const_cast<char*>(payload.data()) + body, payload.size() - body};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = count;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFrameFds)];
    if (first && !fds.empty()) {
      // The descriptors ride on the frame's first byte.
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    const ssize_t r = sendmsg(socket, &msg, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw Error(ErrorKind::io, os_error("sending on the cache service socket"));
    first = false;
    sent += static_cast<std::size_t>(r);
  }
}

std::optional<std::string> receive_frame(int socket, std::vector<FileDescriptor>& fds, std::size_t max_bytes) {
  fds.clear();
  unsigned char header[4];
  if (!receive_exactly(socket, reinterpret_cast<char*>(header), 4, fds, true)) return std::nullopt;
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= std::uint32_t(header[i]) << (8 * i);
  if (n > max_bytes) throw Error(ErrorKind::io, "a frame of " + std::to_string(n) + " bytes exceeds the limit of " + std::to_string(max_bytes));
  std::string payload(n, '\0');
  if (n) receive_exactly(socket, payload.data(), n, fds, false);
  return payload;
}

PeerCredentials peer_credentials(int socket) {
  ucred c{};
  socklen_t len = sizeof c;
  if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0) throw Error(ErrorKind::io, os_error("SO_PEERCRED"));
  return {c.pid, c.uid, c.gid};
}

std::string default_socket_path() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (runtime && *runtime) return std::string(runtime) + "/zarrgpu/cache.sock";
  return "/tmp/zarrgpu-" + std::to_string(geteuid()) + "/cache.sock";
}

void prepare_socket_directory(const std::string& socket_path) {
  const std::string dir = std::filesystem::path(socket_path).parent_path().string();
  if (dir.empty()) throw Error(ErrorKind::invalid_argument, "socket path \"" + socket_path + "\" has no directory");
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(ErrorKind::invalid_argument, os_error("creating the socket directory " + dir));
  struct stat st{};
  if (lstat(dir.c_str(), &st) != 0) throw Error(ErrorKind::invalid_argument, os_error("socket directory " + dir));
  if (!S_ISDIR(st.st_mode)) throw Error(ErrorKind::invalid_argument, "socket directory " + dir + " is not a directory (or is a symlink)");
  if (st.st_uid != geteuid())
    throw Error(ErrorKind::invalid_argument, "socket directory " + dir + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user");
  if (st.st_mode & 077)
    throw Error(ErrorKind::invalid_argument, "socket directory " + dir + " may be entered by other users (mode " +
                                                 std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                                                 std::to_string(st.st_mode & 7) + "; it must be 700)");
}

FileDescriptor listen_unix(const std::string& path, int backlog) {
  const sockaddr_un a = address(path);
  prepare_socket_directory(path);
  struct stat st{};
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) throw Error(ErrorKind::invalid_argument, path + " exists and is not a socket");
    FileDescriptor probe(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (connect(probe.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0)
      throw Error(ErrorKind::invalid_argument, "a cache service already listens at " + path);
    unlink(path.c_str());  // stale: its service is gone
  }
  FileDescriptor s(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) throw Error(ErrorKind::io, os_error("socket"));
  // The socket file is created 0600 (umask), never briefly wider.
  const mode_t old = umask(0177);
  const int r = bind(s.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a);
  const int err = errno;
  umask(old);
  if (r != 0) throw Error(ErrorKind::io, os_error("bind " + path, err));
  if (chmod(path.c_str(), 0600) != 0) throw Error(ErrorKind::io, os_error("chmod " + path));
  if (listen(s.get(), backlog) != 0) throw Error(ErrorKind::io, os_error("listen " + path));
  return s;
}

FileDescriptor connect_unix(const std::string& path) {
  const sockaddr_un a = address(path);
  FileDescriptor s(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s) throw Error(ErrorKind::io, os_error("socket"));
  if (connect(s.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0)
    throw Error(ErrorKind::not_found, os_error("no zarrgpu cache service at " + path));
  return s;
}

}  // namespace zarrgpu::ipc
