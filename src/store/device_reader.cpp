#include "store/device_reader.hpp"

namespace zarrgpu::store {

const char* to_string(IoPath p) noexcept {
  switch (p) {
    case IoPath::posix: return "posix";
    case IoPath::gds: return "gds";
    case IoPath::gds_compat: return "gds-compat";
  }
  return "?";
}

IoMode io_request() { return config().io; }

IoPath resolve_io_path(IoMode request, bool cufile_ok, bool true_gds, bool local) noexcept {
  if (!cufile_ok || !local) return IoPath::posix;
  switch (request) {
    case IoMode::posix: return IoPath::posix;
    case IoMode::auto_: return true_gds ? IoPath::gds : IoPath::posix;
    case IoMode::gds: return true_gds ? IoPath::gds : IoPath::gds_compat;
    case IoMode::gds_compat: return IoPath::gds_compat;
  }
  return IoPath::posix;
}

DeviceReadPath device_read_path(Store& store, IoMode request) {
  if (auto* reader = dynamic_cast<DeviceReader*>(&store)) return reader->device_read_path(request);
  return {IoPath::posix, "posix pread into the pinned ring"};
}

}  // namespace zarrgpu::store
