// Descriptors: the JSON form round-trips, and every malformed, inconsistent or
// oversized descriptor is refused with the documented error kind (docs/ipc.md).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "zarrgpu/error.hpp"
#include "zarrgpu/ipc.hpp"

namespace zarrgpu::ipc {
namespace {

using json = nlohmann::json;

Descriptor host_descriptor() {
  Descriptor d;
  d.data_type = DataType::float32;
  d.shape = {4, 5};
  d.strides = {20, 4};
  d.allocation_size = 80;
  d.device = Device::cpu();
  d.handle_kind = HandleKind::memfd;
  return d;
}

Descriptor device_descriptor() {
  Descriptor d = host_descriptor();
  d.device = Device::cuda(1);
  d.device_uuid = "GPU-0123abcd-0123-4567-89ab-0123456789ab";
  d.handle_kind = HandleKind::cuda_ipc;
  d.handle = std::string(128, 'a');
  d.event = std::string(128, '0');
  return d;
}

ErrorKind kind_of(const std::string& text) {
  try {
    parse_descriptor(text);
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "accepted: " << text;
  return ErrorKind::internal;
}

std::string with(const Descriptor& d, const std::function<void(json&)>& edit) {
  json j = json::parse(to_json(d));
  edit(j);
  return j.dump();
}

TEST(IpcDescriptor, RoundTripsHostAndDevice) {
  for (const Descriptor& d : {host_descriptor(), device_descriptor()}) {
    const Descriptor back = parse_descriptor(to_json(d));
    EXPECT_EQ(back.data_type, d.data_type);
    EXPECT_EQ(back.shape, d.shape);
    EXPECT_EQ(back.strides, d.strides);
    EXPECT_EQ(back.allocation_size, d.allocation_size);
    EXPECT_EQ(back.device, d.device);
    EXPECT_EQ(back.device_uuid, d.device_uuid);
    EXPECT_EQ(back.handle_kind, d.handle_kind);
    EXPECT_EQ(back.handle, d.handle);
    EXPECT_EQ(back.event, d.event);
    EXPECT_EQ(to_json(back), to_json(d));
  }
}

TEST(IpcDescriptor, StatesTheTypeInEverySpelling) {
  Descriptor d = host_descriptor();
  d.data_type = DataType::bfloat16;
  d.strides = {10, 2};
  json j = json::parse(to_json(d));
  EXPECT_EQ(j["data_type"], "bfloat16");
  EXPECT_EQ(j["typestr"], "bfloat16");
  EXPECT_EQ(j["dlpack_dtype"], (json{{"code", 4}, {"bits", 16}, {"lanes", 1}}));
  d.data_type = DataType::complex128;
  d.strides = {80, 16};
  d.allocation_size = 320;
  j = json::parse(to_json(d));
  EXPECT_EQ(j["typestr"], "<c16");
  EXPECT_EQ(j["dlpack_dtype"], (json{{"code", 5}, {"bits", 128}, {"lanes", 1}}));
  d.data_type = DataType::bool_;
  d.strides = {5, 1};
  j = json::parse(to_json(d));
  EXPECT_EQ(j["typestr"], "|b1");
  EXPECT_EQ(j["dlpack_dtype"], (json{{"code", 6}, {"bits", 8}, {"lanes", 1}}));
}

TEST(IpcDescriptor, SliceIsTheBaseAllocationPlusOffset) {
  Descriptor d = host_descriptor();  // rows 1..2 of a 4x5 float32 array
  d.shape = {2, 5};
  d.byte_offset = 20;
  EXPECT_EQ(parse_descriptor(to_json(d)).byte_offset, 20u);
  EXPECT_EQ(d.span_bytes(), 40u);
  d.shape = {4, 2};  // every other column, reversed: starts at column 4
  d.strides = {20, -8};
  d.byte_offset = 16;
  EXPECT_NO_THROW(validate(d));
  d.byte_offset = 4;  // column 4 - 8 bytes reaches before the allocation
  EXPECT_THROW(validate(d), Error);
}

TEST(IpcDescriptor, MalformedTextIsInvalidArgument) {
  EXPECT_EQ(kind_of(""), ErrorKind::invalid_argument);
  EXPECT_EQ(kind_of("{"), ErrorKind::invalid_argument);
  EXPECT_EQ(kind_of("[1,2]"), ErrorKind::invalid_argument);
  EXPECT_EQ(kind_of("{\"zarrgpu_ipc\": \"1\"}"), ErrorKind::invalid_argument);
  EXPECT_EQ(kind_of(std::string(kMaxDescriptorBytes + 1, ' ')), ErrorKind::invalid_argument);
}

TEST(IpcDescriptor, AnotherVersionIsUnsupported) {
  EXPECT_EQ(kind_of(with(host_descriptor(), [](json& j) { j["zarrgpu_ipc"] = 2; })), ErrorKind::unsupported);
  EXPECT_EQ(kind_of(with(host_descriptor(), [](json& j) { j["zarrgpu_ipc"] = 0; })), ErrorKind::unsupported);
}

TEST(IpcDescriptor, InconsistentMembersAreRefused) {
  const Descriptor h = host_descriptor();
  const Descriptor g = device_descriptor();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing shape", with(h, [](json& j) { j.erase("shape"); })},
      {"unknown member", with(h, [](json& j) { j["pointer"] = 1234; })},
      {"string data type", with(h, [](json& j) { j["data_type"] = "string"; })},
      {"unknown data type", with(h, [](json& j) { j["data_type"] = "float128"; })},
      {"typestr disagrees", with(h, [](json& j) { j["typestr"] = "<f8"; })},
      {"typestr big-endian", with(h, [](json& j) { j["typestr"] = ">f4"; })},
      {"dlpack disagrees", with(h, [](json& j) { j["dlpack_dtype"]["bits"] = 64; })},
      {"negative extent", with(h, [](json& j) { j["shape"][0] = -1; })},
      {"float extent", with(h, [](json& j) { j["shape"][0] = 4.0; })},
      {"rank mismatch", with(h, [](json& j) { j["strides"] = {4}; })},
      {"odd stride", with(h, [](json& j) { j["strides"][1] = 3; })},
      {"past the end", with(h, [](json& j) { j["byte_offset"] = 4; })},
      {"oversized shape", with(h, [](json& j) { j["shape"][0] = 5; })},
      {"huge extent", with(h, [](json& j) { j["shape"][0] = std::uint64_t(1) << 62; })},
      {"wrapping stride", with(h, [](json& j) { j["strides"][0] = std::int64_t(1) << 62; j["shape"][0] = 5; })},
      {"offset past allocation", with(h, [](json& j) { j["byte_offset"] = 81; })},
      {"allocation over 2^63", with(h, [](json& j) { j["allocation_size"] = std::uint64_t(-1); })},
      {"rank 65", with(h, [](json& j) { j["shape"] = std::vector<int>(65, 1); j["strides"] = std::vector<int>(65, 4); })},
      {"host with cuda handle", with(h, [](json& j) { j["handle"] = {{"kind", "cuda_ipc"}, {"value", std::string(128, 'a')}}; })},
      {"host with uuid", with(h, [](json& j) { j["device"]["uuid"] = "GPU-0123abcd-0123-4567-89ab-0123456789ab"; })},
      {"host index 1", with(h, [](json& j) { j["device"]["index"] = 1; })},
      {"memory disagrees", with(h, [](json& j) { j["memory"] = "device"; })},
      {"memfd value", with(h, [](json& j) { j["handle"]["value"] = "00"; })},
      {"host event", with(h, [](json& j) { j["event"] = std::string(128, 'a'); })},
      {"device memfd", with(g, [](json& j) { j["handle"] = {{"kind", "memfd"}}; })},
      {"short handle", with(g, [](json& j) { j["handle"]["value"] = std::string(126, 'a'); })},
      {"not hex", with(g, [](json& j) { j["handle"]["value"] = std::string(128, 'g'); })},
      {"no handle value", with(g, [](json& j) { j["handle"].erase("value"); })},
      {"bad uuid", with(g, [](json& j) { j["device"]["uuid"] = "GPU-xyz"; })},
      {"bad event", with(g, [](json& j) { j["event"] = 7; })},
      {"device index", with(g, [](json& j) { j["device"]["index"] = 100000; })},
      {"device type", with(g, [](json& j) { j["device"]["type"] = "rocm"; })},
      {"read_only type", with(g, [](json& j) { j["read_only"] = 1; })},
      {"long lease", with(g, [](json& j) { j["lease"] = std::string(200, 'x'); })},
  };
  for (const auto& [what, text] : cases) EXPECT_EQ(kind_of(text), ErrorKind::invalid_argument) << what;
}

TEST(IpcDescriptor, EmptyArraysNeedNoMemory) {
  Descriptor d = host_descriptor();
  d.shape = {0, 5};
  d.allocation_size = 0;
  EXPECT_NO_THROW(validate(d));
  EXPECT_EQ(d.span_bytes(), 0u);
}

}  // namespace
}  // namespace zarrgpu::ipc
