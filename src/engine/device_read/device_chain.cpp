#include "engine/device_read/device_chain.hpp"

#include "core/numpy_dtype_spelling.hpp"
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

bool is_integer(DataType t) { return is_signed_int(t) || is_unsigned_int(t) || t == DataType::bool_; }

// Transposes from the encoded side outwards: stride of decoded axis order[k] =
// stride of encoded axis k (v3 transpose codec). False if an order is malformed.
bool permute_strides(const codec::CodecChain& chain, std::vector<std::int64_t>& strides) {
  const auto a2a = chain.array_to_array();
  const auto reprs = chain.representations();
  gpu::c_order_strides(reprs.back().shape, strides);
  for (std::size_t i = a2a.size(); i-- > 0;) {
    const CodecSpec spec = a2a[i]->spec();
    const auto it = spec.configuration.find("order");
    if (it == spec.configuration.end() || !it->is_array() || it->size() != strides.size()) return false;
    std::vector<std::int64_t> decoded(strides.size(), -1);
    for (std::size_t k = 0; k < strides.size(); ++k) {
      if (!(*it)[k].is_number_integer()) return false;
      const auto axis = (*it)[k].get<std::int64_t>();
      if (axis < 0 || static_cast<std::size_t>(axis) >= strides.size() || decoded[axis] != -1) return false;
      decoded[axis] = strides[k];
    }
    strides = std::move(decoded);
  }
  return true;
}

// numcodecs.delta with dtype == astype == the chunk's integer type (not bool:
// numcodecs decodes a bool delta as "any so far", not as a sum).
bool gpu_delta(const codec::ArrayToArrayCodec& c, DataType chunk_type) {
  if (!is_integer(chunk_type) || chunk_type == DataType::bool_) return false;
  const CodecSpec spec = c.spec();
  const auto& cfg = spec.configuration;
  auto type_of = [&](const char* field) -> std::optional<DataType> {
    const auto it = cfg.find(field);
    if (it == cfg.end() || !it->is_string()) return std::nullopt;
    Endian e{};
    return from_numpy_dtype(it->get<std::string>(), &e);
  };
  const auto dtype = type_of("dtype");
  if (!dtype || size_of(*dtype) != size_of(chunk_type) || !is_integer(*dtype)) return false;
  if (cfg.contains("astype") && !cfg["astype"].is_null()) {
    const auto astype = type_of("astype");
    if (!astype || size_of(*astype) != size_of(*dtype) || !is_integer(*astype)) return false;
  }
  return true;
}

}  // namespace

DeviceChain classify_chain(const codec::CodecChain& chain, bool gpu_zstd) {
  DeviceChain d;
  const auto& chunk = chain.chunk();
  d.decoded_bytes = chunk.nbytes();
  d.src_strides.assign(chunk.shape.size(), 0);
  gpu::c_order_strides(chunk.shape, d.src_strides);

  // array->bytes must be `bytes`, and every array->array codec must have a GPU form.
  if (chain.array_to_bytes().name() != "bytes") return d;
  const auto a2a = chain.array_to_array();
  std::size_t transposes = 0, deltas = 0;
  for (const auto& c : a2a) {
    if (c->name() == "transpose") ++transposes;
    else if (c->name() == "numcodecs.delta" && gpu_delta(*c, chunk.data_type)) ++deltas;
    else return d;
  }
  if (deltas > 1 || (deltas == 1 && transposes > 0)) return d;
  std::vector<std::int64_t> strides(chunk.shape.size(), 0);
  if (transposes > 0 && !permute_strides(chain, strides)) return d;

  // The `bytes` codec's order: "endian" absent means single-byte elements.
  const DataType a2b_type = chain.representations().back().data_type;
  const CodecSpec bytes_spec = chain.array_to_bytes().spec();
  const auto endian = bytes_spec.configuration.find("endian");
  const bool big = endian != bytes_spec.configuration.end() && endian->is_string() && endian->get<std::string>() == "big";
  if (big && component_size(a2b_type) > 1) d.swap = static_cast<unsigned>(component_size(a2b_type));
  if (transposes > 0) d.src_strides = std::move(strides);
  d.delta = deltas == 1;

  // bytes->bytes: [shuffle] zstd on the GPU, or all on the CPU.
  const auto b2b = chain.bytes_to_bytes();
  d.mode = DeviceChain::Mode::gpu;
  if (b2b.empty()) return d;
  bool gpu_ok = gpu_zstd && b2b.size() <= 2 && (b2b.back()->name() == "zstd" || b2b.back()->name() == "numcodecs.zstd");
  unsigned shuffle = 0;
  if (gpu_ok && b2b.size() == 2) {
    const CodecSpec s = b2b.front()->spec();
    const auto es = s.configuration.find("elementsize");
    if (b2b.front()->name() == "numcodecs.shuffle" && es != s.configuration.end() && es->is_number_unsigned() &&
        es->get<std::uint64_t>() >= 1 && es->get<std::uint64_t>() <= 64) {
      shuffle = es->get<unsigned>();
    } else {
      gpu_ok = false;
    }
  }
  if (gpu_ok) {
    d.zstd = true;
    d.shuffle_elementsize = shuffle;
    d.gpu_codecs = shuffle ? "zstd, numcodecs.shuffle" : "zstd";
  } else {
    d.mode = DeviceChain::Mode::cpu_bytes;
  }
  return d;
}

}  // namespace zarrgpu::engine::device_read
