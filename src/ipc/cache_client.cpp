#include "zarrgpu/ipc_client.hpp"

#include "ipc/service_protocol.hpp"
#include "ipc/unix_socket.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::ipc {

using json = nlohmann::json;

struct CacheClient::Impl {
  std::string path;
  FileDescriptor socket;
  std::string instance, memory;

  json request(const json& r, std::vector<FileDescriptor>& fds) {
    std::optional<std::string> frame;
    try {
      send_frame(socket.get(), r.dump());
      frame = receive_frame(socket.get(), fds);
    } catch (const Error&) {
      frame.reset();
    }
    if (!frame)
      throw Error(ErrorKind::io, "the cache service at " + path + " closed the connection (it exited or restarted): leases taken on it are void");
    json answer = parse_message(*frame);
    throw_if_error(answer);
    return answer;
  }

  json request(const json& r) {
    std::vector<FileDescriptor> fds;
    return request(r, fds);
  }

  CacheLease lease(const json& r) {
    std::vector<FileDescriptor> fds;
    json a = request(r, fds);
    CacheLease l;
    l.id = a.at("lease").get<std::string>();
    l.hit = a.value("hit", false);
    l.descriptor = parse_descriptor(a.at("descriptor").dump());
    l.memory = SharedMemory::open(l.descriptor, fds.empty() ? -1 : fds[0].get());
    return l;  // the received descriptors close here: the mapping keeps what it needs
  }
};

CacheClient::CacheClient(const std::string& socket_path) : impl_(std::make_unique<Impl>()) {
  impl_->path = socket_path.empty() ? default_socket_path() : socket_path;
  impl_->socket = connect_unix(impl_->path);
  json hello = impl_->request({{"op", "hello"}});
  if (hello.value("protocol", 0) != kProtocolVersion)
    throw Error(ErrorKind::unsupported, "the cache service speaks protocol " + hello.value("protocol", json(0)).dump() +
                                            ", this client " + std::to_string(kProtocolVersion));
  impl_->instance = hello.value("instance", "");
  impl_->memory = hello.value("memory", "");
}

CacheClient::~CacheClient() = default;
CacheClient::CacheClient(CacheClient&&) noexcept = default;
CacheClient& CacheClient::operator=(CacheClient&&) noexcept = default;

CacheLease CacheClient::read(const std::string& store, const std::string& array, const std::string& selection) {
  return impl_->lease({{"op", "read"}, {"store", store}, {"array", array}, {"selection", selection}});
}

CacheLease CacheClient::create(const std::string& name, DataType t, const std::vector<std::uint64_t>& shape) {
  return impl_->lease({{"op", "create"}, {"name", name}, {"data_type", std::string(v3_name(t))}, {"shape", shape}});
}

void CacheClient::publish(const std::string& name) { impl_->request({{"op", "publish"}, {"name", name}}); }
CacheLease CacheClient::open(const std::string& name) { return impl_->lease({{"op", "open"}, {"name", name}}); }
void CacheClient::remove(const std::string& name) { impl_->request({{"op", "remove"}, {"name", name}}); }
void CacheClient::release(const CacheLease& lease) { impl_->request({{"op", "release"}, {"lease", lease.id}}); }

std::string CacheClient::stats_json() {
  json s = impl_->request({{"op", "stats"}});
  s.erase("ok");
  return s.dump();
}

const std::string& CacheClient::instance() const noexcept { return impl_->instance; }
const std::string& CacheClient::memory() const noexcept { return impl_->memory; }

}  // namespace zarrgpu::ipc
