#include "store/s3_access.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "zarrgpu/error.hpp"

namespace zarrgpu::store {
namespace {

namespace fs = std::filesystem;

// Sets AWS variables for one test and restores them after.
class AwsEnvironment : public ::testing::Test {
 protected:
  static constexpr const char* kNames[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                           "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                                           "AWS_ENDPOINT_URL_S3", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"};
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("zarrgpu_s3_access_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    for (const char* n : kNames) {
      const char* v = std::getenv(n);
      saved_[n] = v ? std::optional<std::string>(v) : std::nullopt;
      ::unsetenv(n);
    }
    set("AWS_SHARED_CREDENTIALS_FILE", (dir_ / "credentials").string());
    set("AWS_CONFIG_FILE", (dir_ / "config").string());
  }
  void TearDown() override {
    for (const auto& [n, v] : saved_) {
      if (v) ::setenv(n.c_str(), v->c_str(), 1);
      else ::unsetenv(n.c_str());
    }
    fs::remove_all(dir_);
  }
  static void set(const char* n, const std::string& v) { ::setenv(n, v.c_str(), 1); }
  void write(const char* name, const std::string& text) { std::ofstream(dir_ / name) << text; }

  fs::path dir_;
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST_F(AwsEnvironment, NoCredentialsAnywhereIsAnonymousOnAwsVirtualHosted) {
  const auto a = resolve_s3_access("era5", {});
  EXPECT_TRUE(a.anonymous);
  EXPECT_EQ(a.region, "us-east-1");
  EXPECT_EQ(a.bucket_url, "https://era5.s3.us-east-1.amazonaws.com");
  EXPECT_EQ(resolve_s3_access("a.b", {}).bucket_url, "https://s3.us-east-1.amazonaws.com/a.b");
}

TEST_F(AwsEnvironment, OptionsBeatTheEnvironmentWhichBeatsTheFiles) {
  write("credentials", "[default]\naws_access_key_id = FILE\naws_secret_access_key = FILESECRET\n");
  write("config", "[default]\nregion = eu-west-1\n");
  auto a = resolve_s3_access("b", {});
  EXPECT_EQ(a.access_key_id, "FILE");
  EXPECT_EQ(a.region, "eu-west-1");
  set("AWS_ACCESS_KEY_ID", "ENV");
  set("AWS_SECRET_ACCESS_KEY", "ENVSECRET");
  set("AWS_REGION", "ap-south-1");
  set("AWS_ENDPOINT_URL", "http://127.0.0.1:9000/");
  a = resolve_s3_access("b", {});
  EXPECT_EQ(a.access_key_id, "ENV");
  EXPECT_EQ(a.region, "ap-south-1");
  EXPECT_EQ(a.bucket_url, "http://127.0.0.1:9000/b");
  a = resolve_s3_access("b", {{"key", "OPT"}, {"secret", "S"}, {"region", "us-west-2"},
                              {"endpoint_url", "http://h:1"}});
  EXPECT_EQ(a.access_key_id, "OPT");
  EXPECT_EQ(a.region, "us-west-2");
  EXPECT_EQ(a.bucket_url, "http://h:1/b");
  EXPECT_TRUE(resolve_s3_access("b", {{"anon", "true"}}).anonymous);
}

TEST_F(AwsEnvironment, ANamedProfileReadsItsSectionsAndMustExist) {
  write("credentials", "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n"
                       "# comment\n[work]\naws_access_key_id = W\naws_secret_access_key = WS\naws_session_token = T\n");
  write("config", "[profile work]\nregion = eu-central-1\n");
  set("AWS_PROFILE", "work");
  auto a = resolve_s3_access("b", {});
  EXPECT_EQ(a.access_key_id, "W");
  EXPECT_EQ(a.session_token, "T");
  EXPECT_EQ(a.region, "eu-central-1");
  try {
    resolve_s3_access("b", {{"profile", "nope"}});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos);
  }
}

TEST_F(AwsEnvironment, UnknownOptionsAndAKeyWithoutSecretAreRefused) {
  EXPECT_THROW(resolve_s3_access("b", {{"regoin", "x"}}), Error);
  EXPECT_THROW(resolve_s3_access("b", {{"anon", "yes"}}), Error);
  set("AWS_ACCESS_KEY_ID", "K");
  EXPECT_THROW(resolve_s3_access("b", {}), Error);
}

}  // namespace
}  // namespace zarrgpu::store
