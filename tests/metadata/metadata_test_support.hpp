// Shared by the metadata tests: reading JSON files and asserting on Errors.
#pragma once

#include <fstream>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "zarrgpu/error.hpp"
#include "metadata/metadata.hpp"

namespace zarrgpu::testing {

inline json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

inline std::string fixture_path(const std::string& name) {
  return std::string(ZARRGPU_SOURCE_DIR) + "/tests/metadata/fixtures/" + name;
}

// Runs `f`, which must throw Error of `kind` whose message holds every one
// of `needles` (the node, the field, what was wrong).
inline ::testing::AssertionResult throws_error(const std::function<void()>& f, ErrorKind kind,
                                               std::initializer_list<std::string> needles) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() != kind)
      return ::testing::AssertionFailure() << "kind " << to_string(e.kind()) << ", expected "
                                           << to_string(kind) << ": " << e.what();
    const std::string msg = e.what();
    for (const auto& n : needles)
      if (msg.find(n) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks \"" << n << "\": " << msg;
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-zarrgpu exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace zarrgpu::testing
