#include "engine/read_report.hpp"

#include <string>
#include <vector>

#include "engine/device_read/device_chain.hpp"

namespace zarrgpu {

namespace {
thread_local ReadReport g_last;
}  // namespace

ReadReport last_read_report() { return g_last; }

namespace engine {

namespace {

std::vector<std::string> names_of(const codec::CodecChain& chain) {
  std::vector<std::string> out;
  for (const auto& c : chain.array_to_array()) out.emplace_back(c->name());
  out.emplace_back(chain.array_to_bytes().name());
  for (const auto& c : chain.bytes_to_bytes()) out.emplace_back(c->name());
  return out;
}

}  // namespace

std::vector<std::string> chain_codec_names(const ArrayState& state) {
  if (!state.sharding) return names_of(state.chain);
  std::vector<std::string> out{std::string(state.sharding->name())};
  for (auto& name : names_of(state.sharding->inner_chain())) out.push_back(std::move(name));
  return out;
}

ReadReport device_read_report(const DeviceReadStats& s, const ArrayState& state, Device device) {
  ReadReport r;
  r.device = device;
  r.io_path = s.io_path;
  r.io_detail = s.io_detail;
  r.decoder_detail = s.decoder_detail();
  r.chunks = s.chunks;
  r.missing_chunks = s.missing_chunks;
  r.bytes_read = s.bytes_read;
  r.bytes_decoded = s.bytes_decoded;
  r.bytes_out = s.bytes_out;
  r.seconds = s.seconds_total;
  r.seconds_read_threads = s.seconds_read_threads;
  r.seconds_decode_threads = s.seconds_cpu_decode_threads;

  const codec::CodecChain& chain = state.sharding ? state.sharding->inner_chain() : state.chain;
  const std::uint64_t decoded = s.chunks - s.missing_chunks;
  const auto dc = device_read::classify_chain(chain, true);
  using Mode = device_read::DeviceChain::Mode;
  // Chunks whose bytes-to-bytes codecs ran on the GPU: in a chain whose compressor
  // may run there, those of the batches that took the GPU decoder.
  const std::uint64_t b2b_gpu = dc.mode != Mode::gpu ? 0 : dc.decoder ? s.decoder_gpu_chunks : decoded;
  const std::uint64_t rest_gpu = dc.mode == Mode::cpu ? 0 : decoded;
  if (state.sharding) r.codecs.push_back({std::string(state.sharding->name()), decoded, 0});
  for (const auto& c : chain.array_to_array()) r.codecs.push_back({std::string(c->name()), decoded - rest_gpu, rest_gpu});
  r.codecs.push_back({std::string(chain.array_to_bytes().name()), decoded - rest_gpu, rest_gpu});
  for (const auto& c : chain.bytes_to_bytes()) r.codecs.push_back({std::string(c->name()), decoded - b2b_gpu, b2b_gpu});
  return r;
}

void add_store_activity(ReadReport& r, const Store& store, const StoreActivity& before) {
  const StoreActivity now = store.activity();
  r.store = store.kind();
  r.requests = now.requests - before.requests;
  r.retries = now.retries - before.retries;
  r.bytes_fetched = now.bytes_fetched - before.bytes_fetched;
}

void publish_read_report(const ReadReport& report, const ReadOptions& options) {
  g_last = report;
  if (options.report) *options.report = report;
}

}  // namespace engine
}  // namespace zarrgpu
