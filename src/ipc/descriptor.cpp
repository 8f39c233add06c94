// The descriptor's JSON form and its validation (docs/ipc.md). Every member is
// checked before anything is mapped: a descriptor is input from another
// process, possibly forged.
#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "ipc/dlpack_type.hpp"
#include "ipc/hex.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/ipc.hpp"

namespace zarrgpu::ipc {
namespace {

using json = nlohmann::json;

// CUDA_IPC_HANDLE_SIZE: both cudaIpcMemHandle_t and cudaIpcEventHandle_t are 64 bytes.
constexpr std::size_t kCudaHandleBytes = 64;
// Offsets and sizes stay in int64's range, as the engine's (src/engine/size_limits.hpp).
constexpr std::uint64_t kMaxSize = std::uint64_t(std::numeric_limits<std::int64_t>::max());

[[noreturn]] void bad(const std::string& what) {
  throw Error(ErrorKind::invalid_argument, "IPC descriptor: " + what);
}

bool is_uuid(std::string_view s) {
  // "GPU-" then 8-4-4-4-12 hex digits (nvidia-smi -L, cudaDeviceProp::uuid).
  if (s.size() != 40 || s.substr(0, 4) != "GPU-") return false;
  for (std::size_t i = 4; i < s.size(); ++i) {
    bool dash = i == 12 || i == 17 || i == 22 || i == 27;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

const json& member(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) bad(std::string("member \"") + name + "\" is missing");
  return *it;
}

std::uint64_t unsigned_member(const json& j, const char* name) {
  const json& v = member(j, name);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    bad(std::string("\"") + name + "\" must be a non-negative integer");
  return v.get<std::uint64_t>();
}

std::string string_member(const json& j, const char* name) {
  const json& v = member(j, name);
  if (!v.is_string()) bad(std::string("\"") + name + "\" must be a string");
  return v.get<std::string>();
}

void only_members(const json& j, std::initializer_list<const char*> allowed, const char* where) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return it.key() == a; }))
      bad(std::string("unknown member \"") + it.key() + "\" in " + where);
  }
}

}  // namespace

std::string_view handle_kind_name(HandleKind k) noexcept {
  switch (k) {
    case HandleKind::cuda_ipc: return "cuda_ipc";
    case HandleKind::fd: return "fd";
    case HandleKind::memfd: return "memfd";
  }
  return "memfd";
}

std::vector<std::int64_t> contiguous_strides(const std::vector<std::uint64_t>& shape, DataType t) {
  std::vector<std::int64_t> strides(shape.size());
  std::int64_t s = static_cast<std::int64_t>(size_of(t));
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= static_cast<std::int64_t>(std::max<std::uint64_t>(shape[i], 1));
  }
  return strides;
}

std::uint64_t Descriptor::span_bytes() const {
  std::uint64_t lo = 0, hi = 0;  // relative to the first element, as |negative| and positive reach
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return 0;
    std::uint64_t reach = (shape[i] - 1) * static_cast<std::uint64_t>(strides[i] < 0 ? -strides[i] : strides[i]);
    (strides[i] < 0 ? lo : hi) += reach;
  }
  return lo + hi + size_of(data_type);
}

void validate(const Descriptor& d) {
  if (d.version != kDescriptorVersion)
    throw Error(ErrorKind::unsupported, "IPC descriptor: version " + std::to_string(d.version) +
                                            " (this zarrgpu reads version " + std::to_string(kDescriptorVersion) + ")");
  if (!is_numeric(d.data_type)) bad("data type " + describe(d.data_type) + " cannot be shared (numeric types only)");
  if (d.shape.size() > kMaxRank) bad("rank " + std::to_string(d.shape.size()) + " exceeds " + std::to_string(kMaxRank));
  if (d.strides.size() != d.shape.size())
    bad("strides has " + std::to_string(d.strides.size()) + " entries for rank " + std::to_string(d.shape.size()));
  if (d.allocation_size > kMaxSize) bad("allocation_size exceeds 2^63-1");
  const auto item = static_cast<std::int64_t>(size_of(d.data_type));
  // Reach below and above the first element, each bounded by the allocation so the sums cannot wrap.
  std::uint64_t below = 0, above = 0;
  bool empty = false;
  for (std::size_t i = 0; i < d.shape.size(); ++i) {
    const std::int64_t s = d.strides[i];
    if (s % item != 0) bad("stride " + std::to_string(s) + " is not a multiple of the element size " + std::to_string(item));
    if (d.shape[i] > kMaxSize) bad("extent " + std::to_string(d.shape[i]) + " exceeds 2^63-1");
    if (d.shape[i] == 0) empty = true;
  }
  if (d.byte_offset > d.allocation_size) bad("byte_offset " + std::to_string(d.byte_offset) + " lies past the allocation");
  if (!empty) {
    for (std::size_t i = 0; i < d.shape.size(); ++i) {
      const std::uint64_t step = d.strides[i] < 0 ? std::uint64_t(0) - std::uint64_t(d.strides[i]) : std::uint64_t(d.strides[i]);
      const std::uint64_t n = d.shape[i] - 1;
      if (step != 0 && n > d.allocation_size / step) bad("the view reaches past the allocation (dimension " + std::to_string(i) + ")");
      (d.strides[i] < 0 ? below : above) += n * step;
      if (below > d.allocation_size || above > d.allocation_size) bad("the view reaches past the allocation");
    }
    if (below > d.byte_offset) bad("negative strides reach before the allocation's start");
    if (above + std::uint64_t(item) > d.allocation_size - d.byte_offset)
      bad("the view (offset " + std::to_string(d.byte_offset) + ", " + std::to_string(above + item) +
          " bytes) reaches past the allocation of " + std::to_string(d.allocation_size) + " bytes");
  }
  const bool host = d.device.kind == Device::Kind::cpu;
  if (d.device.index < 0) bad("device index " + std::to_string(d.device.index));
  if (host && d.handle_kind != HandleKind::memfd) bad("host memory is shared as a memfd handle only");
  if (!host && d.handle_kind == HandleKind::memfd) bad("device memory cannot have a memfd handle");
  if (host && !d.device_uuid.empty()) bad("host memory has no device UUID");
  if (!host && !is_uuid(d.device_uuid)) bad("device uuid \"" + d.device_uuid + "\" is not GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
  if (d.handle_kind == HandleKind::cuda_ipc) {
    if (d.handle.size() != 2 * kCudaHandleBytes || !is_hex(d.handle))
      bad("a cuda_ipc handle is 128 hex digits (a 64-byte cudaIpcMemHandle_t)");
  } else if (!d.handle.empty()) {
    bad(std::string("a ") + std::string(handle_kind_name(d.handle_kind)) + " handle has no value: the file descriptor travels beside the descriptor");
  }
  if (!d.event.empty() && (host || d.event.size() != 2 * kCudaHandleBytes || !is_hex(d.event)))
    bad("event must be null or, for device memory, 128 hex digits (a cudaIpcEventHandle_t)");
  if (d.lease.size() > 128) bad("lease id longer than 128 characters");
}

std::string to_json(const Descriptor& d) {
  validate(d);
  json j;
  j["zarrgpu_ipc"] = d.version;
  j["data_type"] = std::string(v3_name(d.data_type));
  j["typestr"] = numpy_str(d.data_type, native_endian());
  const DLPackType dl = dlpack_type(d.data_type);
  j["dlpack_dtype"] = {{"code", dl.code}, {"bits", dl.bits}, {"lanes", dl.lanes}};
  j["shape"] = d.shape;
  j["strides"] = d.strides;
  j["byte_offset"] = d.byte_offset;
  j["allocation_size"] = d.allocation_size;
  j["memory"] = d.device.kind == Device::Kind::cpu ? "host" : "device";
  j["device"] = {{"type", d.device.kind == Device::Kind::cpu ? "cpu" : "cuda"},
                 {"index", d.device.index},
                 {"uuid", d.device_uuid}};
  j["handle"] = {{"kind", std::string(handle_kind_name(d.handle_kind))}};
  if (d.handle_kind == HandleKind::cuda_ipc) j["handle"]["value"] = d.handle;
  j["event"] = d.event.empty() ? json(nullptr) : json(d.event);
  j["read_only"] = d.read_only;
  if (!d.lease.empty()) j["lease"] = d.lease;
  return j.dump();
}

Descriptor parse_descriptor(std::string_view text) {
  if (text.size() > kMaxDescriptorBytes)
    bad(std::to_string(text.size()) + " bytes exceed the limit of " + std::to_string(kMaxDescriptorBytes));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) bad("not JSON");
  if (!j.is_object()) bad("not a JSON object");
  // The version first: a newer descriptor may have members this build does not know.
  const json& version = member(j, "zarrgpu_ipc");
  if (!version.is_number_integer()) bad("\"zarrgpu_ipc\" (the version) must be an integer");
  Descriptor d;
  d.version = version.get<std::int64_t>() == kDescriptorVersion ? kDescriptorVersion : -1;
  if (d.version != kDescriptorVersion)
    throw Error(ErrorKind::unsupported, "IPC descriptor: version " + version.dump() + " (this zarrgpu reads version " +
                                            std::to_string(kDescriptorVersion) + ")");
  only_members(j, {"zarrgpu_ipc", "data_type", "typestr", "dlpack_dtype", "shape", "strides", "byte_offset",
                   "allocation_size", "memory", "device", "handle", "event", "read_only", "lease"},
               "the descriptor");
  const std::string type_name = string_member(j, "data_type");
  auto t = from_v3_name(type_name);
  if (!t) bad("unknown data type \"" + type_name + "\"");
  d.data_type = *t;
  if (!is_numeric(d.data_type)) bad("data type " + type_name + " cannot be shared (numeric types only)");
  // The other spellings must agree with the type: a reader may go by either.
  if (string_member(j, "typestr") != numpy_str(d.data_type, native_endian()))
    bad("typestr \"" + string_member(j, "typestr") + "\" does not match data_type " + type_name);
  const json& dl = member(j, "dlpack_dtype");
  const DLPackType want = dlpack_type(d.data_type);
  if (!dl.is_object() || dl != json{{"code", want.code}, {"bits", want.bits}, {"lanes", want.lanes}})
    bad("dlpack_dtype " + dl.dump() + " does not match data_type " + type_name);
  const json& shape = member(j, "shape");
  const json& strides = member(j, "strides");
  if (!shape.is_array() || shape.size() > kMaxRank) bad("\"shape\" must be an array of at most " + std::to_string(kMaxRank) + " integers");
  if (!strides.is_array() || strides.size() > kMaxRank) bad("\"strides\" must be an array of at most " + std::to_string(kMaxRank) + " integers");
  for (const json& e : shape) {
    if (!e.is_number_integer() || (e.is_number_integer() && !e.is_number_unsigned() && e.get<std::int64_t>() < 0))
      bad("shape entries must be non-negative integers");
    d.shape.push_back(e.get<std::uint64_t>());
  }
  for (const json& e : strides) {
    if (!e.is_number_integer() || (e.is_number_unsigned() && e.get<std::uint64_t>() > kMaxSize))
      bad("strides entries must be integers within int64");
    d.strides.push_back(e.get<std::int64_t>());
  }
  d.byte_offset = unsigned_member(j, "byte_offset");
  d.allocation_size = unsigned_member(j, "allocation_size");
  const std::string memory = string_member(j, "memory");
  const json& device = member(j, "device");
  if (!device.is_object()) bad("\"device\" must be an object");
  only_members(device, {"type", "index", "uuid"}, "device");
  const std::string device_type = string_member(device, "type");
  const std::uint64_t index = unsigned_member(device, "index");
  if (index > 1024) bad("device index " + std::to_string(index));
  if (device_type == "cpu") d.device = Device::cpu();
  else if (device_type == "cuda") d.device = Device::cuda(static_cast<int>(index));
  else bad("device type \"" + device_type + "\" (cpu or cuda)");
  if (device_type == "cpu" && index != 0) bad("host memory has device index 0");
  if (memory != (device_type == "cpu" ? "host" : "device")) bad("memory \"" + memory + "\" does not match device type " + device_type);
  d.device_uuid = string_member(device, "uuid");
  const json& handle = member(j, "handle");
  if (!handle.is_object()) bad("\"handle\" must be an object");
  only_members(handle, {"kind", "value"}, "handle");
  const std::string kind = string_member(handle, "kind");
  if (kind == "cuda_ipc") d.handle_kind = HandleKind::cuda_ipc;
  else if (kind == "fd") d.handle_kind = HandleKind::fd;
  else if (kind == "memfd") d.handle_kind = HandleKind::memfd;
  else bad("handle kind \"" + kind + "\" (cuda_ipc, fd or memfd)");
  if (handle.contains("value")) d.handle = string_member(handle, "value");
  else if (d.handle_kind == HandleKind::cuda_ipc) bad("a cuda_ipc handle needs its \"value\"");
  const json& event = member(j, "event");
  if (!event.is_null() && !event.is_string()) bad("\"event\" must be null or a string");
  if (event.is_string()) d.event = event.get<std::string>();
  const json& read_only = member(j, "read_only");
  if (!read_only.is_boolean()) bad("\"read_only\" must be true or false");
  d.read_only = read_only.get<bool>();
  if (j.contains("lease")) d.lease = string_member(j, "lease");
  validate(d);
  return d;
}

}  // namespace zarrgpu::ipc
