// gs:// access: the GCS XML API endpoint, HMAC keys from options only,
// anonymous otherwise (AWS credentials in the environment are not GCS's).
#include "store/gcs_access.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

#include "zarrgpu/error.hpp"

namespace zarrgpu::store {
namespace {

// Sets the variables a gs:// store could wrongly read for one test; restores them after.
class GcsEnvironment : public ::testing::Test {
 protected:
  static constexpr const char* kNames[] = {"STORAGE_EMULATOR_HOST", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                           "AWS_ENDPOINT_URL", "AWS_REGION"};
  void SetUp() override {
    for (std::size_t i = 0; i < std::size(kNames); ++i) {
      const char* v = std::getenv(kNames[i]);
      saved_[i] = v ? std::optional<std::string>(v) : std::nullopt;
      ::unsetenv(kNames[i]);
    }
    ::setenv("AWS_ACCESS_KEY_ID", "AKIA-AWS", 1);
    ::setenv("AWS_SECRET_ACCESS_KEY", "aws-secret", 1);
    ::setenv("AWS_ENDPOINT_URL", "http://aws.invalid", 1);
    ::setenv("AWS_REGION", "eu-west-1", 1);
  }
  void TearDown() override {
    for (std::size_t i = 0; i < std::size(kNames); ++i) {
      if (saved_[i]) ::setenv(kNames[i], saved_[i]->c_str(), 1);
      else ::unsetenv(kNames[i]);
    }
  }
  std::optional<std::string> saved_[std::size(kNames)];
};

TEST_F(GcsEnvironment, AnonymousOnGooglesEndpointWhateverAwsSays) {
  const auto a = resolve_gcs_access("era5", {});
  EXPECT_TRUE(a.anonymous);
  EXPECT_EQ(a.access_key_id, "");
  EXPECT_EQ(a.region, "auto");
  EXPECT_EQ(a.bucket_url, "https://storage.googleapis.com/era5");
}

TEST_F(GcsEnvironment, HmacKeyAndEndpointFromOptionsTheEmulatorFromItsVariable) {
  const auto a = resolve_gcs_access("b", {{"key", "GOOG1"}, {"secret", "s"}, {"endpoint_url", "http://h:1/"},
                                          {"region", "us-central1"}});
  EXPECT_FALSE(a.anonymous);
  EXPECT_EQ(a.access_key_id, "GOOG1");
  EXPECT_EQ(a.secret_access_key, "s");
  EXPECT_EQ(a.region, "us-central1");
  EXPECT_EQ(a.bucket_url, "http://h:1/b");
  ::setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:4443", 1);
  EXPECT_EQ(resolve_gcs_access("b", {}).bucket_url, "http://127.0.0.1:4443/b");
  EXPECT_TRUE(resolve_gcs_access("b", {{"key", "GOOG1"}, {"secret", "s"}, {"anon", "true"}}).anonymous);
}

TEST_F(GcsEnvironment, BadOptionsAreInvalidArgumentsNamingTheBucket) {
  for (const std::map<std::string, std::string>& options :
       {std::map<std::string, std::string>{{"profile", "x"}}, {{"key", "GOOG1"}}, {{"secret", "s"}},
        {{"anon", "yes"}}}) {
    try {
      resolve_gcs_access("b", options);
      ADD_FAILURE() << options.begin()->first;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
      EXPECT_EQ(e.context().store, "gs://b");
      EXPECT_EQ(std::string(e.what()).find("GOOG1"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace zarrgpu::store
