#include "engine/device_read/device_chain.hpp"

#include "gpu/place_box.hpp"

namespace zarrgpu::engine::device_read {

const char* DeviceChain::mode_name() const noexcept {
  switch (mode) {
    case Mode::gpu: return "gpu";
    case Mode::cpu_bytes: return "cpu-bytes";
    case Mode::cpu: return "cpu";
  }
  return "?";
}

namespace {

const codec::BytesToBytesCodec* device_decoding_codec(const codec::CodecChain& chain) {
  const auto b2b = chain.bytes_to_bytes();
  for (auto it = b2b.rbegin(); it != b2b.rend(); ++it)
    if ((*it)->device_decoder()) return it->get();
  return nullptr;
}

}  // namespace

const codec::BatchedDeviceDecoder* find_device_decoder(const codec::CodecChain& chain) {
  const auto* c = device_decoding_codec(chain);
  return c ? c->device_decoder() : nullptr;
}

std::string device_decoder_codec(const codec::CodecChain& chain) {
  const auto* c = device_decoding_codec(chain);
  return c ? std::string(c->name()) : std::string();
}

DeviceChain classify_chain(const codec::CodecChain& chain, bool device_decoders) {
  DeviceChain d;
  const auto& chunk = chain.chunk();
  d.decoded_bytes = chunk.nbytes();
  d.src_strides.assign(chunk.shape.size(), 0);
  gpu::c_order_strides(chunk.shape, d.src_strides);

  // array->bytes must have a device form, and so must every array->array codec:
  // axis reorderings (folded into placement's strides), or one in-place step
  // on its own.
  const auto reprs = chain.representations();
  const auto swap = chain.array_to_bytes().device_swap(reprs.back());
  if (!swap) return d;
  const auto a2a = chain.array_to_array();
  std::vector<std::int64_t> strides(chunk.shape.size(), 0);
  gpu::c_order_strides(reprs.back().shape, strides);
  bool reordered = false;
  const codec::DeviceArrayStep* step = nullptr;
  // From the encoded side outwards: each reordering maps the strides of its
  // encoded axes onto its decoded ones.
  for (std::size_t i = a2a.size(); i-- > 0;) {
    if (auto s = a2a[i]->decoded_strides(strides)) {
      strides = std::move(*s);
      reordered = true;
    } else if (const auto* st = a2a[i]->device_step(reprs[i]); st && !step) {
      step = st;
    } else {
      return d;
    }
  }
  if (step && reordered) return d;
  d.swap = *swap;
  if (reordered) d.src_strides = std::move(strides);
  d.array_step = step;

  // bytes->bytes: [step] decoder on the GPU, or all on the CPU.
  const auto b2b = chain.bytes_to_bytes();
  d.mode = DeviceChain::Mode::gpu;
  if (b2b.empty()) return d;
  const codec::BatchedDeviceDecoder* decoder = device_decoders && b2b.size() <= 2 ? b2b.back()->device_decoder() : nullptr;
  const codec::DeviceBytesStep* bytes_step = nullptr;
  if (decoder && b2b.size() == 2) {
    bytes_step = b2b.front()->device_step();
    if (!bytes_step) decoder = nullptr;
  }
  if (decoder) {
    d.decoder = decoder;
    d.bytes_step = bytes_step;
    d.gpu_codecs = std::string(b2b.back()->name());
    if (bytes_step) d.gpu_codecs += ", " + std::string(b2b.front()->name());
  } else {
    d.mode = DeviceChain::Mode::cpu_bytes;
  }
  return d;
}

}  // namespace zarrgpu::engine::device_read
