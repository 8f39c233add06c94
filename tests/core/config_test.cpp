// zarrgpu::Config: the environment parsed once, set_config, validation, and
// the parts of the library that take their settings from it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/config_environment.hpp"
#include "codec/bytes_to_bytes/zstd/zstd_device_decoder.hpp"
#include "gpu/staging_config.hpp"
#include "store/device_reader.hpp"
#include "store/readahead_window.hpp"
#include "zarrgpu/config.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {
namespace {

// A fake environment for core::config_from.
Config from(std::map<std::string, std::string> vars) {
  return core::config_from([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

// The error `vars` give, or "" when they parse.
std::string error_of(std::map<std::string, std::string> vars) {
  try {
    from(std::move(vars));
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    return e.what();
  }
  return "";
}

// Restores the process's configuration when a test ends.
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = config(); }
  void TearDown() override { set_config(saved_); }
  Config saved_;
};

TEST(ByteSize, ParsesPowersOf1024) {
  EXPECT_EQ(parse_byte_size("0"), 0u);
  EXPECT_EQ(parse_byte_size("65536"), 65536u);
  EXPECT_EQ(parse_byte_size("268435456"), 268435456u);
  EXPECT_EQ(parse_byte_size("64K"), 65536u);
  EXPECT_EQ(parse_byte_size("4k"), 4096u);
  EXPECT_EQ(parse_byte_size("256M"), 256u << 20);
  EXPECT_EQ(parse_byte_size("256MiB"), 256u << 20);
  EXPECT_EQ(parse_byte_size("256mb"), 256u << 20);
  EXPECT_EQ(parse_byte_size("512MB"), 512u << 20);
  EXPECT_EQ(parse_byte_size("1G"), std::uint64_t(1) << 30);
  EXPECT_EQ(parse_byte_size("2GiB"), std::uint64_t(2) << 30);
  EXPECT_EQ(parse_byte_size("2T"), std::uint64_t(2) << 40);
  EXPECT_EQ(parse_byte_size("10B"), 10u);
  for (const char* bad : {"", "M", "-1", "+1", " 1", "1 ", "5 M", "1.5G", "12X", "12Q", "1iB", "1MiBs", "0x10", "off",
                          "99999999999999999999", "17179869184G", "99999999999999T"}) {
    EXPECT_EQ(parse_byte_size(bad), std::nullopt) << bad;
  }
}

TEST(ConfigEnvironment, UnsetOrEmptyVariablesGiveTheDefaults) {
  EXPECT_EQ(from({}), Config{});
  EXPECT_EQ(from({{"ZARRGPU_IO", ""}, {"ZARRGPU_READAHEAD", ""}, {"ZARRGPU_THREADS", ""}}), Config{});
  const Config d;
  EXPECT_EQ(d.threads, 0u);
  EXPECT_EQ(d.io, IoMode::auto_);
  EXPECT_EQ(d.zstd_decoder, DecoderChoice::auto_);
  EXPECT_EQ(d.lz4_decoder, DecoderChoice::auto_);
  EXPECT_EQ(d.blosc_decoder, DecoderChoice::auto_);
  EXPECT_EQ(d.readahead_bytes, std::uint64_t(256) << 20);
  EXPECT_EQ(d.staging_bytes, std::uint64_t(256) << 20);
  EXPECT_EQ(d.staging_slots, 0u);
  EXPECT_EQ(d.scratch_bytes, 0u);
  EXPECT_EQ(d.read_piece_bytes, std::uint64_t(4) << 20);
  EXPECT_TRUE(d.keep_device_buffers);
  EXPECT_EQ(d.memory_limit, 0u);
}

TEST(ConfigEnvironment, EveryVariableSetsItsField) {
  const Config c = from({{"ZARRGPU_THREADS", "3"},
                         {"ZARRGPU_IO", "gds-compat"},
                         {"ZARRGPU_GPU_ZSTD", "0"},
                         {"ZARRGPU_GPU_LZ4", "1"},
                         {"ZARRGPU_GPU_BLOSC", "cpu"},
                         {"ZARRGPU_READAHEAD", "0"},
                         {"ZARRGPU_STAGING_BYTES", "64M"},
                         {"ZARRGPU_STAGING_SLOTS", "5"},
                         {"ZARRGPU_SCRATCH_BYTES", "1G"},
                         {"ZARRGPU_READ_PIECE_BYTES", "300"},
                         {"ZARRGPU_KEEP_DEVICE_BUFFERS", "0"},
                         {"ZARRGPU_MEMORY_LIMIT", "2GiB"}});
  EXPECT_EQ(c.threads, 3u);
  EXPECT_EQ(c.io, IoMode::gds_compat);
  EXPECT_EQ(c.zstd_decoder, DecoderChoice::cpu);
  EXPECT_EQ(c.lz4_decoder, DecoderChoice::gpu);
  EXPECT_EQ(c.blosc_decoder, DecoderChoice::cpu);
  EXPECT_EQ(c.readahead_bytes, 0u);
  EXPECT_EQ(c.staging_bytes, 64u << 20);
  EXPECT_EQ(c.staging_slots, 5u);
  EXPECT_EQ(c.scratch_bytes, std::uint64_t(1) << 30);
  EXPECT_EQ(c.read_piece_bytes, 300u);
  EXPECT_FALSE(c.keep_device_buffers);
  EXPECT_EQ(c.memory_limit, std::uint64_t(2) << 30);
  EXPECT_EQ(from({{"ZARRGPU_GPU_ZSTD", "1"}}).zstd_decoder, DecoderChoice::gpu);
  EXPECT_EQ(from({{"ZARRGPU_GPU_ZSTD", "gpu"}}).zstd_decoder, DecoderChoice::gpu);
  EXPECT_EQ(from({{"ZARRGPU_GPU_ZSTD", "auto"}}).zstd_decoder, DecoderChoice::auto_);
  EXPECT_EQ(from({{"ZARRGPU_GPU_BLOSC", "0"}, {"ZARRGPU_GPU_LZ4", "0"}}).zstd_decoder, DecoderChoice::auto_);
  EXPECT_EQ(from({{"ZARRGPU_GPU_LZ4", "auto"}}).lz4_decoder, DecoderChoice::auto_);
  EXPECT_EQ(from({{"ZARRGPU_GPU_BLOSC", "gpu"}}).blosc_decoder, DecoderChoice::gpu);
}

TEST(ConfigEnvironment, ABadValueIsAnErrorNamingTheVariable) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"ZARRGPU_THREADS", "many"},       {"ZARRGPU_THREADS", "-2"},         {"ZARRGPU_IO", "dma"},
      {"ZARRGPU_GPU_ZSTD", "on"},        {"ZARRGPU_GPU_ZSTD", "2"},         {"ZARRGPU_READAHEAD", "lots"},
      {"ZARRGPU_GPU_LZ4", "yes"},        {"ZARRGPU_GPU_BLOSC", "2"},
      {"ZARRGPU_STAGING_BYTES", "lots"}, {"ZARRGPU_STAGING_BYTES", "0"},    {"ZARRGPU_STAGING_SLOTS", "1"},
      {"ZARRGPU_STAGING_SLOTS", "17"},   {"ZARRGPU_SCRATCH_BYTES", "-1"},   {"ZARRGPU_READ_PIECE_BYTES", "lots"},
      {"ZARRGPU_KEEP_DEVICE_BUFFERS", "yes"}, {"ZARRGPU_MEMORY_LIMIT", "lots"}};
  for (const auto& [name, value] : bad) {
    const std::string e = error_of({{name, value}});
    EXPECT_NE(e.find(name), std::string::npos) << name << "=" << value << ": " << e;
  }
  for (const char* v : {"-2", "1.5G", " 3"}) EXPECT_NE(error_of({{"ZARRGPU_READAHEAD", v}}), "") << v;
}

TEST_F(ConfigTest, TheEnvironmentIsReadOnce) {
  const Config first = config();
  // Variables changed after the first use change nothing, even bad ones.
  ::setenv("ZARRGPU_IO", "not-a-mode", 1);
  ::setenv("ZARRGPU_READAHEAD", "1M", 1);
  EXPECT_EQ(config(), first);
  EXPECT_EQ(store::readahead_bytes(), first.readahead_bytes);
  ::unsetenv("ZARRGPU_IO");
  ::unsetenv("ZARRGPU_READAHEAD");
}

TEST_F(ConfigTest, SetConfigReplacesTheSettingsAndValidatesThem) {
  Config c;
  c.threads = 2;
  c.io = IoMode::posix;
  c.zstd_decoder = DecoderChoice::gpu;
  c.readahead_bytes = 1 << 20;
  c.keep_device_buffers = false;
  set_config(c);
  EXPECT_EQ(config(), c);

  Config bad = c;
  bad.staging_slots = 1;
  EXPECT_THROW(set_config(bad), Error);
  bad = c;
  bad.staging_bytes = 0;
  EXPECT_THROW(set_config(bad), Error);
  bad = c;
  bad.read_piece_bytes = 0;
  EXPECT_THROW(set_config(bad), Error);
  EXPECT_EQ(config(), c);  // a refused configuration leaves the one in force
}

TEST_F(ConfigTest, TheLibraryTakesItsSettingsFromIt) {
  Config c;
  c.io = IoMode::gds;
  c.zstd_decoder = DecoderChoice::cpu;
  c.readahead_bytes = 3 << 20;
  set_config(c);
  EXPECT_EQ(store::readahead_bytes(), 3u << 20);
  EXPECT_EQ(store::io_request(), IoMode::gds);
  EXPECT_EQ(codec::zstd_device_decoder().choice(), DecoderChoice::cpu);
}

TEST(ConfigNames, RoundTrip) {
  for (IoMode m : {IoMode::auto_, IoMode::posix, IoMode::gds, IoMode::gds_compat})
    EXPECT_EQ(parse_io_mode(to_string(m)), m);
  for (DecoderChoice d : {DecoderChoice::auto_, DecoderChoice::cpu, DecoderChoice::gpu})
    EXPECT_EQ(parse_decoder_choice(to_string(d)), d);
  EXPECT_EQ(to_string(IoMode::gds_compat), "gds-compat");
  EXPECT_FALSE(parse_io_mode("dma"));
  EXPECT_FALSE(parse_decoder_choice("yes"));
}

}  // namespace
}  // namespace zarrgpu
