#include "ipc/cache_service.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipc/hex.hpp"
#include "ipc/service_protocol.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {
namespace {

// Unlike any earlier instance's: clients tell a restarted service by it.
std::string random_instance() {
  unsigned char bytes[8] = {};
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    const auto t = static_cast<unsigned long long>(getpid()) ^ static_cast<unsigned long long>(time(nullptr)) << 20;
    std::memcpy(bytes, &t, sizeof bytes);
  }
  return to_hex(bytes, sizeof bytes);
}

}  // namespace

CacheService::CacheService(ServiceOptions options)
    : options_(std::move(options)), instance_(random_instance()), cache_(options_.budget, instance_) {
  if (options_.socket_path.empty()) options_.socket_path = default_socket_path();
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) throw Error(ErrorKind::io, std::string("pipe2: ") + std::strerror(errno));
  wake_read_.reset(p[0]);
  wake_write_.reset(p[1]);
}

CacheService::~CacheService() {
  stop();
  for (auto& [id, t] : threads_)
    if (t.joinable()) t.join();
  if (listener_) unlink(options_.socket_path.c_str());
}

void CacheService::bind() { listener_ = listen_unix(options_.socket_path); }

void CacheService::stop() noexcept {
  stopping_.store(true);
  const char c = 1;
  [[maybe_unused]] ssize_t r = write(wake_write_.get(), &c, 1);
}

bool CacheService::admitted(int socket) const {
  const PeerCredentials peer = peer_credentials(socket);
  if (peer.uid == geteuid()) return true;
  for (uid_t u : options_.allow_uids)
    if (peer.uid == u) return true;
  std::fprintf(stderr, "zarrgpu serve: refused a connection from uid %u (pid %d): not this user nor allowed\n",
               static_cast<unsigned>(peer.uid), static_cast<int>(peer.pid));
  return false;
}

void CacheService::run() {
  if (!listener_) bind();
  while (!stopping_.load()) {
    pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {wake_read_.get(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorKind::io, std::string("poll: ") + std::strerror(errno));
    }
    if (stopping_.load() || (fds[1].revents & POLLIN)) break;
    if (!(fds[0].revents & POLLIN)) continue;
    FileDescriptor client(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!client) continue;  // the peer left before accept: nothing to serve
    try {
      if (!admitted(client.get())) continue;
    } catch (const Error&) {
      continue;
    }
    std::lock_guard lock(connections_mutex_);
    for (std::uint64_t done : finished_) {  // threads of closed connections
      threads_[done].join();
      threads_.erase(done);
    }
    finished_.clear();
    const std::uint64_t id = next_connection_++;
    connections_[id] = client.get();
    threads_.emplace(id, std::thread([this, id, c = std::move(client)]() mutable { serve(std::move(c), id); }));
  }
  // Wake every connection's thread out of its receive, then wait for them.
  {
    std::lock_guard lock(connections_mutex_);
    for (const auto& [id, fd] : connections_) shutdown(fd, SHUT_RDWR);
  }
  for (auto& [id, t] : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
  unlink(options_.socket_path.c_str());
  listener_.reset();
}

void CacheService::serve(FileDescriptor socket, std::uint64_t id) {
  std::vector<FileDescriptor> received;
  try {
    while (!stopping_.load()) {
      std::optional<std::string> frame;
      try {
        frame = receive_frame(socket.get(), received, kMaxRequestBytes);
      } catch (const Error& e) {
        // Oversized or broken framing: the stream cannot be trusted further.
        nlohmann::json a = error_answer(Error(ErrorKind::invalid_argument, e.cause()));
        try { send_frame(socket.get(), a.dump()); } catch (const Error&) {}
        break;
      }
      if (!frame) break;  // the client closed the connection (or died)
      received.clear();   // clients send no descriptors: any that came are closed
      std::vector<FileDescriptor> out;
      nlohmann::json request, reply;
      try {
        request = parse_message(*frame);
        reply = answer(request, id, out);
      } catch (const Error& e) {
        reply = error_answer(e);
        out.clear();
      } catch (const std::bad_alloc&) {
        reply = error_answer(Error(ErrorKind::device, "out of memory answering the request"));
        out.clear();
      } catch (const std::exception& e) {
        reply = error_answer(Error(ErrorKind::internal, e.what()));
        out.clear();
      }
      if (request.is_object() && request.contains("id")) reply["id"] = request["id"];
      std::vector<int> fds;
      for (auto& f : out) fds.push_back(f.get());
      send_frame(socket.get(), reply.dump(), fds);
    }
  } catch (const Error&) {
    // The client went away mid-answer: its leases end below, like any close.
  }
  cache_.release_connection(id);
  std::lock_guard lock(connections_mutex_);
  connections_.erase(id);
  finished_.push_back(id);
}

}  // namespace zarrgpu::ipc
