// Config::from_environment with the environment passed in, so that tests can
// give it variables without touching the process's environment (which the
// library reads once).
#pragma once

#include <functional>

#include "zarrgpu/config.hpp"

namespace zarrgpu::core {

// `lookup(name)`: the variable's value, or nullptr when it is unset.
using EnvironmentLookup = std::function<const char*(const char*)>;

// Throws Error(invalid_argument) naming the variable and its value.
Config config_from(const EnvironmentLookup& lookup);

// Error(invalid_argument) for a configuration no read can run with.
void validate(const Config& config);

}  // namespace zarrgpu::core
