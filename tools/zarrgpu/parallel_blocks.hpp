// Runs work items 0..count-1 on `workers` threads. The first exception stops
// the others after their current item and is rethrown; Ctrl-C (cancelled())
// stops them too and throws Interrupted.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>

namespace zarrgpu::cli {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

void for_each_block(std::uint64_t count, unsigned workers, const std::function<void(std::uint64_t)>& fn);

}  // namespace zarrgpu::cli
