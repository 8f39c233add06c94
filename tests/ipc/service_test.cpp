// The service and the C++ client in one process: a read through zarrgpu into
// host shared memory, hits, named arrays, errors to the asking client only,
// leases ended by a closed connection, and a stopped service seen as one.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "ipc/cache_service.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/array.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/ipc_client.hpp"

namespace zarrgpu::ipc {
namespace {

namespace fs = std::filesystem;

class IpcService : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zarrgpu-ipc-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    store_ = (dir_ / "s.zarr").string();
    ArrayMetadata m;
    m.shape = {8, 6};
    m.chunk_shape = {4, 3};
    m.data_type = DataType::int32;
    m.codecs = {{"bytes", {{"endian", "little"}}}};
    Array a = Array::create(open_local_store(store_, true), "x", m);
    std::vector<std::int32_t> v(48);
    for (int i = 0; i < 48; ++i) v[i] = i;
    a.write({}, std::as_bytes(std::span(v)));
    ServiceOptions o;
    o.socket_path = (dir_ / "run" / "cache.sock").string();
    o.budget = 1000;
    service_ = std::make_unique<CacheService>(o);
    service_->bind();
    thread_ = std::thread([this] { service_->run(); });
  }
  void TearDown() override {
    stop();
    fs::remove_all(dir_);
  }
  void stop() {
    if (!service_) return;
    service_->stop();
    thread_.join();
    service_.reset();
  }
  std::string socket() const { return (dir_ / "run" / "cache.sock").string(); }

  fs::path dir_;
  std::string store_;
  std::unique_ptr<CacheService> service_;
  std::thread thread_;
};

TEST_F(IpcService, ReadsThroughZarrgpuAndHits) {
  CacheClient c(socket());
  EXPECT_EQ(c.memory(), "host");
  CacheLease l = c.read(store_, "x", "2:4,1:5");
  EXPECT_FALSE(l.hit);
  EXPECT_EQ(l.descriptor.shape, (std::vector<std::uint64_t>{2, 4}));
  EXPECT_TRUE(l.descriptor.read_only);
  const auto* v = static_cast<const std::int32_t*>(l.data());
  EXPECT_EQ(v[0], 13);
  EXPECT_EQ(v[7], 22);
  EXPECT_TRUE(c.read(store_, "x", "2:4,1:5").hit);
  auto stats = nlohmann::json::parse(c.stats_json());
  EXPECT_EQ(stats["leases"], 2);
}

TEST_F(IpcService, ErrorsGoToTheAskingClient) {
  CacheClient a(socket()), b(socket());
  CacheLease l = a.read(store_, "x");
  try {
    b.read(store_, "missing");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found);
    EXPECT_EQ(e.context().array, "missing");
  }
  try {
    b.read(store_, "x", "0:100,7");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
  EXPECT_EQ(static_cast<const std::int32_t*>(l.data())[47], 47);
  EXPECT_TRUE(a.read(store_, "x").hit);
}

TEST_F(IpcService, ClosedConnectionsReleaseTheirLeases) {
  {
    CacheClient gone(socket());
    gone.read(store_, "x", "0:2");
    gone.read(store_, "x", "2:4");
  }
  CacheClient c(socket());
  for (int i = 0; i < 200 && nlohmann::json::parse(c.stats_json())["leases"] != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(nlohmann::json::parse(c.stats_json())["leases"], 0);
}

TEST_F(IpcService, NamedArraysAndARestartedService) {
  CacheClient w(socket()), r(socket());
  CacheLease created = w.create("grid", DataType::float32, {3, 3});
  static_cast<float*>(created.data())[4] = 2.5f;
  w.publish("grid");
  CacheLease seen = r.open("grid");
  EXPECT_EQ(static_cast<const float*>(seen.data())[4], 2.5f);
  stop();
  try {
    r.stats_json();
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find("exited or restarted"), std::string::npos);
  }
  EXPECT_EQ(static_cast<const float*>(seen.data())[4], 2.5f);  // still mapped here
  try {
    CacheClient again(socket());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found);
  }
}

}  // namespace
}  // namespace zarrgpu::ipc
