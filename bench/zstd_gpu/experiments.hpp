// Switches for comparing variants of the GPU Zstd decoder's dispatch: only
// the benchmark's and the GPU tests' build of dispatch_decompress.cu
// (ZARRGPU_ZSTD_EXPERIMENTS, bench/zstd_gpu/CMakeLists.txt) reads them; the
// library runs the policy (gpu/policy.cuh) and reads no environment.
//
// Each call to the decoder takes the settings fixed by the caller
// (fixed(), for tests), else those of the environment:
//   ZARRGPU_ZSTD_TRACE=1            print each batch's wave plan to stderr
//   ZARRGPU_ZSTD_BLOCK_PARALLEL=1|0 block parallel always / never under Strategy::automatic
//   ZARRGPU_ZSTD_WAVE_TEMP_MIB=n    a wave's scratch, when the caller leaves it to the policy
//   ZARRGPU_ZSTD_MATCH_STAGES=n     match copy in n stages (at most kMaxMatchStages)
//   ZARRGPU_ZSTD_MATCHES_BY_CHUNK=1|0  match copy by chunk / by block, whatever the chunk bound
//   ZARRGPU_ZSTD_CLASSES=1          one weight class (no second stream)
//   ZARRGPU_ZSTD_WAVE_LANES=1       waves one after the other on one stream
// (ab_many.sh's `env:` variants set them.) Plain C++: the tests include it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace zarrgpu::zstd::gpu::experiments {

enum class MatchCopy : uint8_t { automatic, by_block, by_chunk };

struct Settings {
  bool trace = false;
  int block_parallel = -1;        // -1: the policy's rule; 0: never; 1: always
  uint64_t wave_temp_bytes = 0;   // 0: the policy's
  uint32_t match_stages = 0;      // 0: the policy's rule
  MatchCopy match_copy = MatchCopy::automatic;
  bool weight_classes = true;
  bool wave_lanes = true;
};

inline Settings from_environment() {
  auto is = [](const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v != nullptr && std::strcmp(v, value) == 0;
  };
  auto number = [](const char* name) {
    const char* v = std::getenv(name);
    return v == nullptr ? uint64_t{0} : uint64_t{std::strtoull(v, nullptr, 10)};
  };
  Settings s;
  s.trace = is("ZARRGPU_ZSTD_TRACE", "1");
  s.block_parallel = is("ZARRGPU_ZSTD_BLOCK_PARALLEL", "1") ? 1 : is("ZARRGPU_ZSTD_BLOCK_PARALLEL", "0") ? 0 : -1;
  s.wave_temp_bytes = number("ZARRGPU_ZSTD_WAVE_TEMP_MIB") << 20;
  s.match_stages = static_cast<uint32_t>(number("ZARRGPU_ZSTD_MATCH_STAGES"));
  s.match_copy = is("ZARRGPU_ZSTD_MATCHES_BY_CHUNK", "1")   ? MatchCopy::by_chunk
                 : is("ZARRGPU_ZSTD_MATCHES_BY_CHUNK", "0") ? MatchCopy::by_block
                                                            : MatchCopy::automatic;
  s.weight_classes = !is("ZARRGPU_ZSTD_CLASSES", "1");
  s.wave_lanes = !is("ZARRGPU_ZSTD_WAVE_LANES", "1");
  return s;
}

// Settings that override the environment while set (one process-wide value).
inline std::optional<Settings>& fixed() {
  static std::optional<Settings> s;
  return s;
}

inline Settings current() { return fixed() ? *fixed() : from_environment(); }

}  // namespace zarrgpu::zstd::gpu::experiments
