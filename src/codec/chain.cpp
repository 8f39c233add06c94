// CodecChain: Zarr v3 §"Codecs" — array -> array codecs, exactly one
// array -> bytes codec, then bytes -> bytes codecs; decoding runs them backwards.
#include <string>
#include <utility>

#include "codec/codec.hpp"
#include "codec/configuration.hpp"

namespace zarrgpu::codec {

namespace {

ErrorContext context_of(const Codec& c) {
  ErrorContext ctx;
  ctx.codec = std::string(c.name());
  return ctx;
}

// Runs `f`; an Error without a codec gets `c`'s name, anything else becomes
// an internal error naming `c` (never let a std::bad_alloc from a corrupt
// header escape without context).
template <class F>
decltype(auto) in_codec(const Codec& c, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw e.with_context(context_of(c));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::corrupt_data, "out of memory while decoding (a size field is likely corrupt)",
                context_of(c));
  }
}

}  // namespace

CodecChain::CodecChain(CodecChain&&) noexcept = default;
CodecChain& CodecChain::operator=(CodecChain&&) noexcept = default;
CodecChain::~CodecChain() = default;

CodecChain CodecChain::build(std::span<const CodecSpec> specs, const ChunkRepresentation& chunk) {
  CodecChain chain;
  chain.chunk_ = chunk;
  ChunkRepresentation current = chunk;
  for (const CodecSpec& spec : specs) {
    std::unique_ptr<Codec> codec = make_codec(spec, chain.a2b_ ? chain.reprs_.back() : current);
    if (auto* a2a = dynamic_cast<ArrayToArrayCodec*>(codec.get())) {
      if (chain.a2b_)
        throw codec_error(ErrorKind::invalid_metadata, spec.name,
                          "an array -> array codec cannot follow the array -> bytes codec '" +
                              std::string(chain.a2b_->name()) + "'");
      chain.reprs_.push_back(current);
      current = a2a->encoded_representation(current);
      codec.release();
      chain.a2a_.emplace_back(a2a);
    } else if (auto* a2b = dynamic_cast<ArrayToBytesCodec*>(codec.get())) {
      if (chain.a2b_)
        throw codec_error(ErrorKind::invalid_metadata, spec.name,
                          "a chain has exactly one array -> bytes codec, and '" +
                              std::string(chain.a2b_->name()) + "' came first");
      chain.reprs_.push_back(current);
      codec.release();
      chain.a2b_.reset(a2b);
    } else if (auto* b2b = dynamic_cast<BytesToBytesCodec*>(codec.get())) {
      if (!chain.a2b_)
        throw codec_error(ErrorKind::invalid_metadata, spec.name,
                          "a bytes -> bytes codec must follow an array -> bytes codec");
      codec.release();
      chain.b2b_.emplace_back(b2b);
    } else {
      throw codec_error(ErrorKind::internal, spec.name, "codec of no known kind");
    }
  }
  if (!chain.a2b_)
    throw Error(ErrorKind::invalid_metadata, "the codecs have no array -> bytes codec (such as \"bytes\")");
  return chain;
}

std::vector<CodecSpec> CodecChain::specs() const {
  std::vector<CodecSpec> out;
  for (const auto& c : a2a_) out.push_back(c->spec());
  out.push_back(a2b_->spec());
  for (const auto& c : b2b_) out.push_back(c->spec());
  return out;
}

std::optional<std::size_t> CodecChain::encoded_size() const {
  std::optional<std::size_t> size = a2b_->encoded_size(reprs_.back());
  for (const auto& c : b2b_) {
    if (!size) return std::nullopt;
    size = c->encoded_size(*size);
  }
  return size;
}

std::optional<std::size_t> CodecChain::max_encoded_size() const {
  std::optional<std::size_t> size = a2b_->max_encoded_size(reprs_.back());
  for (const auto& c : b2b_) {
    if (!size) return std::nullopt;
    size = c->max_encoded_size(*size);
  }
  return size;
}

void CodecChain::decode(std::span<const std::byte> stored, std::span<std::byte> out) const {
  if (out.size() != chunk_.nbytes())
    throw Error(ErrorKind::internal, "decode output has " + std::to_string(out.size()) +
                                         " bytes, the chunk " + std::to_string(chunk_.nbytes()));
  const ChunkRepresentation& a2b_repr = reprs_.back();

  // The size each bytes -> bytes codec decodes to, where the codecs fix it:
  // sizes[i] is the input of b2b_[i] (so sizes[0] is what the a2b codec reads).
  std::vector<std::optional<std::size_t>> sizes(b2b_.size() + 1);
  sizes[0] = a2b_->encoded_size(a2b_repr);
  for (std::size_t i = 0; i < b2b_.size(); ++i)
    sizes[i + 1] = sizes[i] ? b2b_[i]->encoded_size(*sizes[i]) : std::nullopt;
  // Where a size is unknown (after a compressor), what the codecs' worst-case
  // expansions allow: [bytes, zstd, zstd]'s outer zstd decodes to at most
  // what the inner one could have made of the chunk, never to what a
  // hostile frame claims.
  std::vector<std::size_t> limits(b2b_.size() + 1, SIZE_MAX);
  if (auto m = a2b_->max_encoded_size(a2b_repr)) limits[0] = *m;
  for (std::size_t i = 0; i < b2b_.size(); ++i)
    limits[i + 1] = limits[i] == SIZE_MAX ? SIZE_MAX : b2b_[i]->max_encoded_size(limits[i]);

  // Where the array -> bytes codec writes: `out` itself, or a temporary that
  // the array -> array codecs then decode from.
  Bytes a2a_buffer;
  std::span<std::byte> a2b_out = out;
  if (!a2a_.empty()) {
    a2a_buffer.resize(a2b_repr.nbytes());
    a2b_out = a2a_buffer.span();
  }

  Bytes current;
  std::span<const std::byte> bytes = stored;
  bool a2b_done = false;
  for (std::size_t k = b2b_.size(); k-- > 0;) {
    const BytesToBytesCodec& c = *b2b_[k];
    if (k == 0 && a2b_->decode_is_copy(a2b_repr)) {
      // The innermost compressor writes the array bytes in place.
      in_codec(c, [&] { c.decode_into(bytes, a2b_out); });
      a2b_done = true;
      break;
    }
    Bytes next = in_codec(c, [&] {
      return sizes[k] ? c.decode(bytes, *sizes[k]) : c.decode_at_most(bytes, limits[k]);
    });
    current = std::move(next);
    bytes = current.span();
  }
  if (!a2b_done) in_codec(*a2b_, [&] { a2b_->decode(bytes, a2b_out, a2b_repr); });

  if (a2a_.empty()) return;
  Bytes next_buffer;
  for (std::size_t k = a2a_.size(); k-- > 0;) {
    const ArrayToArrayCodec& c = *a2a_[k];
    const ChunkRepresentation& decoded = reprs_[k];
    std::span<std::byte> target = out;
    if (k != 0) {
      next_buffer.resize(decoded.nbytes());
      target = next_buffer.span();
    }
    in_codec(c, [&] { c.decode(a2a_buffer.span(), target, decoded); });
    if (k != 0) std::swap(a2a_buffer, next_buffer);
  }
}

Bytes CodecChain::encode(std::span<const std::byte> array) const {
  if (array.size() != chunk_.nbytes())
    throw Error(ErrorKind::internal, "encode input has " + std::to_string(array.size()) +
                                         " bytes, the chunk " + std::to_string(chunk_.nbytes()));
  Bytes buffer;
  std::span<const std::byte> current = array;
  for (std::size_t k = 0; k < a2a_.size(); ++k) {
    const ArrayToArrayCodec& c = *a2a_[k];
    Bytes next(reprs_[k + 1].nbytes());
    in_codec(c, [&] { c.encode(current, next.span(), reprs_[k]); });
    buffer = std::move(next);
    current = buffer.span();
  }
  Bytes encoded = in_codec(*a2b_, [&] { return a2b_->encode(current, reprs_.back()); });
  // An array -> bytes codec that returns nothing says "all fill value, store
  // nothing" (sharding_indexed with every inner chunk missing).
  if (encoded.empty() && chunk_.num_elements() != 0) return encoded;
  for (const auto& c : b2b_) encoded = in_codec(*c, [&] { return c->encode(encoded.span()); });
  return encoded;
}

}  // namespace zarrgpu::codec
