// zarrgpu::Array: opening, creating, and dispatching reads and writes to the
// engine (src/engine/read.cpp, write.cpp) or to the GPU read path.
#include <algorithm>

#include "codec/codec.hpp"
#include "engine/array_state.hpp"
#include "engine/node_documents.hpp"
#include "engine/node_path.hpp"
#include "engine/read_report.hpp"
#include "engine/size_limits.hpp"
#include "metadata/v2_codec_defaults.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/memory_limit.hpp"

#if defined(ZARRGPU_HAVE_CUDA) && __has_include("engine/device_read/device_read.hpp")
#include "engine/device_read/device_read.hpp"
#define ZARRGPU_ENGINE_DEVICE_READ 1
#endif

namespace zarrgpu {

Array::Array(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata)
    : store_(std::move(store)), path_(engine::normalize_node_path(path)),
      metadata_(std::make_shared<const ArrayMetadata>(std::move(metadata))) {
  if (!store_) throw Error(ErrorKind::invalid_argument, "no store", {path_, "", "", ""});
  try {
    if (metadata_->chunk_shape.size() != metadata_->shape.size()) {
      throw Error(ErrorKind::invalid_metadata, "chunk shape rank " + std::to_string(metadata_->chunk_shape.size()) +
                                                   " differs from the array's " + std::to_string(metadata_->shape.size()));
    }
    if (metadata_->zarr_format == 2 && metadata_->codecs.empty()) {
      // A format 2 array described by its v2 fields only: derive the chain.
      auto m = std::make_shared<ArrayMetadata>(*metadata_);
      m->codecs = v2_codec_chain(m->v2, m->data_type, m->ndim(), path_);
      metadata_ = std::move(m);
    }
    engine::check_array_sizes(*metadata_, path_);
    state_ = engine::make_array_state(*metadata_, path_);
  } catch (const Error& e) {
    throw e.with_context({path_, "", "", store_->describe()});
  }
}

Array Array::open(std::shared_ptr<Store> store, std::string path) {
  if (!store) throw Error(ErrorKind::invalid_argument, "no store", {path, "", "", ""});
  path = engine::normalize_node_path(path);
  NodeMetadata node = open_node(*store, path);
  if (!std::holds_alternative<ArrayMetadata>(node)) {
    throw Error(ErrorKind::invalid_argument, "'" + path + "' is a group, not an array", {path, "", "", store->describe()});
  }
  return Array(std::move(store), std::move(path), std::get<ArrayMetadata>(std::move(node)));
}

Array Array::create(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata, bool overwrite) {
  if (!store) throw Error(ErrorKind::invalid_argument, "no store", {path, "", "", ""});
  path = engine::normalize_node_path(path);
  const ErrorContext ctx{path, "", "", store->describe()};
  // Build (and so validate) everything before touching the store. Format 2
  // keeps dimension names in .zattrs: the array gets the attributes that
  // reopening it would read.
  if (metadata.zarr_format == 2) {
    try {
      // numcodecs builds a codec from its JSON alone: write the members it
      // needs, at its defaults ({"id": "astype", "encode_dtype": "<f4"} gets
      // its decode_dtype, {"id": "zstd"} its level).
      metadata.v2.compressor = v2_codec_with_defaults(metadata.v2.compressor, metadata.data_type, metadata.v2.endian);
      if (metadata.v2.filters.is_array())
        for (auto& f : metadata.v2.filters) f = v2_codec_with_defaults(f, metadata.data_type, metadata.v2.endian);
      metadata.attributes = to_zattrs(metadata);
    } catch (const Error& e) {
      throw e.with_context(ctx);
    }
  } else {
    // Codecs given by name alone ({"name": "zstd"}) are written with the
    // configuration they run with, as zarr-python writes them (it refuses a
    // codec without its configuration).
    // A "bytes" named alone gets zarr-python's BytesCodec default, the host's
    // (little) order, where the spec requires one (multi-byte items); reads
    // keep requiring it.
    if (size_of(metadata.data_type) > 1)
      for (CodecSpec& c : metadata.codecs)
        if (c.name == "bytes" && !c.configuration.contains("endian")) c.configuration["endian"] = "little";
    try {
      const codec::CodecChain chain = codec::CodecChain::build(
          metadata.codecs, {metadata.chunk_shape, metadata.data_type, metadata.fill_value});
      std::vector<CodecSpec> written = chain.specs();
      for (std::size_t i = 0; i < written.size() && i < metadata.codecs.size(); ++i)
        written[i].must_understand = metadata.codecs[i].must_understand;
      metadata.codecs = std::move(written);
    } catch (const Error& e) {
      throw e.with_context(ctx);
    }
  }
  Array array(store, path, std::move(metadata));
  const ArrayMetadata& m = array.metadata();
  for (const char* name : {"zarr.json", ".zarray", ".zgroup"}) {
    const std::string key = engine::join_key(path, name);
    if (!store->exists(key)) continue;
    if (!overwrite) {
      throw Error(ErrorKind::invalid_argument, "a node already exists at '" + path + "' (" + key + ")", ctx);
    }
  }
  if (overwrite) {
    // Like zarr-python's overwrite: the node and everything below it go.
    for (const auto& key : store->list(path)) store->erase(key);
  }
  const NodeMetadata node = m;
  engine::write_node_documents(*store, path, node);
  if (!path.empty()) engine::update_consolidated(*store, path, &node, overwrite);
  return array;
}

namespace {

// Fixed-size reads and writes need fixed-size elements; device reads need
// types that DLPack and the GPU placement carry (numbers and booleans).
void check_element_access(const Array& a, bool variable_length, const char* what) {
  const DataType t = a.dtype();
  if (is_variable_length(t) == variable_length) return;
  throw Error(ErrorKind::invalid_argument,
              variable_length ? std::string(what) + " is for the string and bytes data types, the array has " + describe(t)
                              : "the array has the variable-length data type " + describe(t) + ": " + what +
                                    " needs fixed-size elements (use read_variable_length / write_variable_length)",
              {a.path(), "", "", a.store()->describe()});
}

// The selection's ranges; errors name the array.
std::vector<DimRange> resolve(const Array& a, const Selection& selection) {
  try {
    return selection.resolve(a.metadata().shape);
  } catch (const Error& e) {
    throw e.with_context({a.path(), "", "", a.store()->describe()});
  }
}

}  // namespace

std::string Array::chunk_key(std::span<const std::uint64_t> chunk_coords) const {
  return engine::join_key(path_, metadata_->chunk_key_encoding.encode(chunk_coords));
}

void Array::replace_metadata(ArrayMetadata m) {
  const NodeMetadata node = m;
  try {
    engine::write_node_documents(*store_, path_, node);
    engine::update_consolidated(*store_, path_, &node);
  } catch (const Error& e) {
    throw e.with_context({path_, "", "", store_->describe()});
  }
  metadata_ = std::make_shared<const ArrayMetadata>(std::get<ArrayMetadata>(node));
}

void Array::resize(std::vector<std::uint64_t> new_shape) {
  const ErrorContext ctx{path_, "", "", store_->describe()};
  if (new_shape.size() != metadata_->shape.size()) {
    throw Error(ErrorKind::invalid_argument, "resize to " + std::to_string(new_shape.size()) +
                                                 " dimensions; the array has " + std::to_string(metadata_->shape.size()),
                ctx);
  }
  const std::vector<std::uint64_t> old_grid = metadata_->grid_shape();
  ArrayMetadata m = *metadata_;
  m.shape = std::move(new_shape);
  const std::vector<std::uint64_t> new_grid = m.grid_shape();
  // The metadata first: a reader that sees the new shape reads erased chunks
  // as the fill value, never chunks beyond its shape.
  replace_metadata(std::move(m));
  // Chunks with a grid coordinate past the new grid in any dimension go.
  const std::size_t nd = old_grid.size();
  bool shrinks = false;
  for (std::size_t d = 0; d < nd; ++d) shrinks |= new_grid[d] < old_grid[d];
  if (!shrinks || nd == 0) return;
  for (std::uint64_t g : old_grid)
    if (g == 0) return;
  std::vector<std::uint64_t> coords(nd, 0);
  for (;;) {
    bool outside = false;
    for (std::size_t d = 0; d < nd; ++d) outside |= coords[d] >= new_grid[d];
    if (outside) {
      const std::string key = chunk_key(coords);
      try {
        store_->erase(key);
      } catch (const Error& e) {
        throw e.with_context(engine::chunk_context(path_, key, *store_));
      }
    }
    std::size_t d = nd;
    while (d > 0 && ++coords[d - 1] == old_grid[d - 1]) coords[--d] = 0;
    if (d == 0) break;
  }
}

std::vector<std::uint64_t> Array::append(std::span<const std::byte> data, std::span<const std::uint64_t> data_shape,
                                         std::size_t axis, const WriteOptions& options) {
  const ErrorContext ctx{path_, "", "", store_->describe()};
  const auto& shape = metadata_->shape;
  if (axis >= shape.size()) {
    throw Error(ErrorKind::invalid_argument, "append along axis " + std::to_string(axis) + " of a " +
                                                 std::to_string(shape.size()) + "-d array", ctx);
  }
  if (data_shape.size() != shape.size()) {
    throw Error(ErrorKind::invalid_argument, "appended data has " + std::to_string(data_shape.size()) +
                                                 " dimensions; the array has " + std::to_string(shape.size()), ctx);
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d != axis && data_shape[d] != shape[d]) {
      throw Error(ErrorKind::invalid_argument, "appended data has extent " + std::to_string(data_shape[d]) +
                                                   " in dimension " + std::to_string(d) + "; the array has " +
                                                   std::to_string(shape[d]), ctx);
    }
  }
  std::uint64_t n = size_of(metadata_->data_type);
  for (auto e : data_shape) n *= e;
  if (data.size() != n) {
    throw Error(ErrorKind::invalid_argument, "appended data holds " + std::to_string(data.size()) +
                                                 " bytes, its shape needs " + std::to_string(n), ctx);
  }
  const std::uint64_t old_extent = shape[axis];
  std::vector<std::uint64_t> grown = shape;
  grown[axis] += data_shape[axis];
  resize(grown);
  std::vector<DimSelection> dims(grown.size(), DimSelection::all());
  dims[axis] = DimSelection::slice(std::int64_t(old_extent), std::int64_t(grown[axis]));
  write(Selection(std::move(dims)), data, options);
  return grown;
}

int Array::zarr_format() const noexcept { return metadata_->zarr_format; }
std::vector<std::uint64_t> Array::shape() const { return metadata_->shape; }
std::vector<std::uint64_t> Array::chunk_shape() const { return metadata_->chunk_shape; }
DataType Array::dtype() const noexcept { return metadata_->data_type; }

std::vector<std::optional<std::string>> Array::dimension_names() const {
  return metadata_->dimension_names.value_or(std::vector<std::optional<std::string>>{});
}

std::string Array::attributes_json() const { return dump_metadata_document(metadata_->attributes, -1); }

std::string Array::metadata_json() const {
  return dump_metadata_document(metadata_->zarr_format == 2 ? to_zarray(*metadata_) : to_zarr_json(*metadata_), -1);
}

void Array::set_attributes(std::string_view attributes_json) {
  const ErrorContext ctx{path_, "", "", store_->describe()};
  // Refused as a metadata document would be (invalid_metadata): the text becomes one.
  json attributes = parse_metadata_document(attributes_json, ctx);
  if (!attributes.is_object()) throw Error(ErrorKind::invalid_argument, "attributes must be a JSON object", ctx);
  ArrayMetadata m = *metadata_;
  m.attributes = std::move(attributes);
  if (m.zarr_format == 2) {
    // .zattrs also carries the dimension names as _ARRAY_DIMENSIONS
    // (to_zattrs): they stay whatever the new attributes say.
    try {
      m.attributes = to_zattrs(m);
    } catch (const Error& e) {
      throw e.with_context({path_, "", "", store_->describe()});
    }
  }
  replace_metadata(std::move(m));
}

void Array::read(const Selection& selection, std::span<std::byte> out, const ReadOptions& options) const {
  check_element_access(*this, false, "a read into a buffer");
  std::vector<DimRange> ranges = resolve(*this, selection);
  ReadReport report;
  const StoreActivity before = store_->activity();
  engine::read_selection(*store_, path_, *metadata_, *state_, std::move(ranges), out, options, &report);
  engine::add_store_activity(report, *store_, before);
  engine::publish_read_report(report, options);
}

Bytes Array::read(const Selection& selection, const ReadOptions& options) const {
  check_element_access(*this, false, "a read into a buffer");
  std::vector<DimRange> ranges = resolve(*this, selection);
  std::vector<std::uint64_t> counts;
  for (const auto& r : ranges) counts.push_back(r.count);
  const auto n = engine::checked_product(counts, size_of(metadata_->data_type));
  if (!n)
    throw Error(ErrorKind::invalid_argument, "the selection holds more than 2^63 bytes",
                {path_, "", "", store_->describe()});
  check_allocation(*n, "the selection [" + selection.to_string() + "] of " + std::string(v3_name(metadata_->data_type)),
                   {path_, "", "", store_->describe()});
  Bytes out(*n);
  ReadReport report;
  const StoreActivity before = store_->activity();
  engine::read_selection(*store_, path_, *metadata_, *state_, std::move(ranges), out.span(), options, &report);
  engine::add_store_activity(report, *store_, before);
  engine::publish_read_report(report, options);
  return out;
}

void Array::read(const Selection& selection, void* out, std::size_t out_bytes, Device device,
                 const ReadOptions& options) const {
  if (device.kind == Device::Kind::cpu) {
    read(selection, std::span(static_cast<std::byte*>(out), out_bytes), options);
    return;
  }
  if (!is_numeric(metadata_->data_type))
    throw Error(ErrorKind::unsupported,
                "arrays of data type " + describe(metadata_->data_type) +
                    " cannot be read to a device (only booleans and numbers can); read them to the host",
                {path_, "", "", store_->describe()});
#if defined(ZARRGPU_ENGINE_DEVICE_READ)
  engine::DeviceReadStats stats;
  const StoreActivity before = store_->activity();
  engine::read_to_device(*this, selection, out, out_bytes, device, options, &stats);
  ReadReport report = engine::device_read_report(stats, *state_, device);
  engine::add_store_activity(report, *store_, before);
  engine::publish_read_report(report, options);
#else
  (void)out;
  (void)out_bytes;
  (void)options;
  throw Error(ErrorKind::unsupported, "this build has no CUDA path", {path_, "", "", store_->describe()});
#endif
}

void Array::write(const Selection& selection, std::span<const std::byte> data, const WriteOptions& options) {
  check_element_access(*this, false, "a write from a buffer");
  std::vector<DimRange> ranges = resolve(*this, selection);
  engine::write_selection(*store_, path_, *metadata_, *state_, std::move(ranges), data, options);
}

std::vector<std::string> Array::read_variable_length(const Selection& selection, const ReadOptions& options) const {
  check_element_access(*this, true, "read_variable_length");
  std::vector<DimRange> ranges = resolve(*this, selection);
  return engine::read_variable_length_selection(*store_, path_, *metadata_, *state_, std::move(ranges), options);
}

void Array::write_variable_length(const Selection& selection, std::span<const std::string> values,
                                  const WriteOptions& options) {
  check_element_access(*this, true, "write_variable_length");
  std::vector<DimRange> ranges = resolve(*this, selection);
  engine::write_variable_length_selection(*store_, path_, *metadata_, *state_, std::move(ranges), values, options);
}

}  // namespace zarrgpu
