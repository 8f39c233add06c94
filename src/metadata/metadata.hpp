// One in-memory model of Zarr array and group metadata, for format 2 and 3.
//
// Format 2 arrays are described by the equivalent format 3 codec chain
// (order F -> transpose, value filters -> array-to-array codecs, the dtype's
// byte order -> `bytes`, byte filters and the compressor -> bytes-to-bytes
// codecs), so the engine knows one chain only. The original v2 fields are
// kept in `ArrayMetadata::v2` so a `.zarray` writes back unchanged.
//
// Private to the library and its in-tree consumers: the installed headers
// (include/zarrgpu) only forward-declare these types and describe a node in
// standard types and JSON text (Array::shape, Array::attributes_json, ...).
#pragma once

#include <array>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "zarrgpu/data_type.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu {

using json = nlohmann::json;

// Fixed-size data types: one element's value, native byte order, in the first
// size_of(data_type) bytes (zero-padded to at least 16 bytes). Variable-length
// types (string, bytes): the value itself, UTF-8 for strings.
struct FillValue {
  std::vector<std::byte> bytes = std::vector<std::byte>(16);
  bool is_null = false;  // format 2 `"fill_value": null`: reads give zeros (empty strings)

  bool operator==(const FillValue&) const = default;
  template <class T> static FillValue of(const T& v) {
    FillValue f; static_assert(sizeof(T) <= 16); std::memcpy(f.bytes.data(), &v, sizeof(T)); return f;
  }
  // True when reads may memset zero: null, or all size_of(t) bytes zero
  // (so -0.0 is not zero).
  bool is_zero(DataType t) const noexcept;
};

// Zarr v3 §"Fill value": numbers, "NaN", "Infinity", "-Infinity", "0x…" hex of the
// float's bits, [re, im] pairs for complex, true/false for bool; zarr-python's
// forms for its NumPy types: integers or "NaT" for times, strings for
// fixed_length_utf32 and string, base64 for the bytes types. Throws invalid_metadata.
FillValue parse_fill_value(const json& j, DataType t, int zarr_format);
json fill_value_to_json(const FillValue& f, DataType t, int zarr_format);

// The data_type member of zarr.json: a name, or {"name", "configuration"} for
// the parametrised types as zarr-python 3 writes them
// ({"name": "fixed_length_utf32", "configuration": {"length_bytes": 20}},
// {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}).
json data_type_to_json(DataType t);

struct CodecSpec {
  std::string name;  // "bytes", "zstd", "sharding_indexed", "numcodecs.delta", ...
  json configuration = json::object();
  bool must_understand = true;
  bool operator==(const CodecSpec&) const = default;
};

struct ChunkKeyEncoding {
  enum class Kind : std::uint8_t { default_, v2 };
  Kind kind = Kind::default_;
  char separator = '/';

  // default: "c/1/2" ("c" for 0-d); v2: "1.2" ("0" for 0-d).
  std::string encode(std::span<const std::uint64_t> chunk_coords) const;
  bool operator==(const ChunkKeyEncoding&) const = default;
};

struct ArrayMetadata {
  int zarr_format = 3;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint64_t> chunk_shape;  // regular grid
  DataType data_type = DataType::float32;
  FillValue fill_value;
  ChunkKeyEncoding chunk_key_encoding;
  std::vector<CodecSpec> codecs;  // format 3 chain (format 2: the equivalent chain)
  // Format 3 dimension_names; format 2: a valid `_ARRAY_DIMENSIONS` attribute (xarray).
  std::optional<std::vector<std::optional<std::string>>> dimension_names;
  json attributes = json::object();

  // Format 2 fields, as read (or as to be written).
  struct V2 {
    char order = 'C';
    Endian endian = Endian::little;
    json filters = nullptr;
    json compressor = nullptr;
    bool operator==(const V2&) const = default;
  } v2;

  std::size_t ndim() const noexcept { return shape.size(); }
  std::uint64_t num_elements() const noexcept;
  // Chunks along each dimension (ceil(shape / chunk_shape)).
  std::vector<std::uint64_t> grid_shape() const;

  bool operator==(const ArrayMetadata&) const = default;
};

struct GroupMetadata {
  int zarr_format = 3;
  json attributes = json::object();
  bool operator==(const GroupMetadata&) const = default;
};

using NodeMetadata = std::variant<ArrayMetadata, GroupMetadata>;

// A node below a group whose metadata zarrgpu cannot use: a data type, codec or
// extension it does not implement, or a broken document. Listings of the group
// keep it, with the reason, so that one such node never hides the others;
// opening it throws `error`. The documents are kept as read, so consolidated
// metadata written back still holds them.
struct UnreadableNode {
  int zarr_format = 3;
  std::string node_type;            // "array" or "group" where the documents say; "" if unknown
  json documents = json::object();  // document name ("zarr.json", ".zarray", ".zattrs") -> as read
  Error error;                      // what opening the node throws

  bool operator==(const UnreadableNode& o) const {
    return zarr_format == o.zarr_format && node_type == o.node_type && documents == o.documents &&
           error.kind() == o.error.kind() && std::string_view(error.what()) == o.error.what();
  }
};

// A node as a group's listing sees it.
using TreeNode = std::variant<ArrayMetadata, GroupMetadata, UnreadableNode>;

// Consolidated metadata: every node below a group, keyed by its path relative
// to that group ("a", "a/b"). Format 3 inline (`consolidated_metadata` in the
// root zarr.json, as zarr-python writes it) and format 2 `.zmetadata`.
struct ConsolidatedMetadata {
  std::map<std::string, TreeNode> nodes;
  bool operator==(const ConsolidatedMetadata&) const = default;
};

// ---- metadata documents as text (src/metadata/json_document.cpp) ----------
// Every zarr.json, .zarray, .zgroup, .zattrs and .zmetadata is read and
// written through these two functions.
//
// Python's json module, and so zarr-python and xarray, writes non-finite
// numbers as the bare tokens NaN, Infinity and -Infinity (outside strings);
// they are read as non-finite doubles and written back as the same tokens.
//
// Limits, so that a hostile document is refused before it is built: at most
// `max_metadata_document_bytes` bytes and `max_metadata_document_depth` nested
// arrays and objects (real metadata nests a handful; consolidated metadata adds
// four levels above a node's attributes). The text must be UTF-8 (RFC 8259
// §8.1; a UTF-8 byte order mark is skipped): UTF-16 and UTF-32 are refused.
inline constexpr std::size_t max_metadata_document_bytes = std::size_t{64} << 20;
inline constexpr std::size_t max_metadata_document_depth = 512;

// Throws Error(invalid_metadata) with `where` (name the document, node, store).
json parse_metadata_document(std::string_view text, const ErrorContext& where);
// `indent` as nlohmann's dump (-1: one line). Throws Error(invalid_metadata)
// for a document nested deeper than the limit or holding a string that is not UTF-8.
std::string dump_metadata_document(const json& doc, int indent = 2);

// ---- parsing and writing (src/metadata) ------------------------------------
// `path` only names the node in error messages. All throw Error(invalid_metadata
// or unsupported) naming the node and the field.
NodeMetadata parse_zarr_json(const json& doc, std::string_view path);
ArrayMetadata parse_zarray(const json& zarray, const json& zattrs, std::string_view path);
GroupMetadata parse_zgroup(const json& zgroup, const json& zattrs, std::string_view path);
// Inline consolidated metadata of a v3 group zarr.json, if present. A node
// whose own metadata fails (invalid_metadata or unsupported) becomes an
// UnreadableNode; a malformed consolidated structure throws.
std::optional<ConsolidatedMetadata> parse_consolidated_v3(const json& group_doc, std::string_view path);
// A v2 `.zmetadata` document; nodes as in parse_consolidated_v3.
ConsolidatedMetadata parse_zmetadata(const json& doc, std::string_view path);

json to_zarr_json(const ArrayMetadata& m);
json to_zarr_json(const GroupMetadata& m);
json to_zarray(const ArrayMetadata& m);  // format 2 .zarray (attributes go to .zattrs)
// Format 2 .zattrs: the attributes, plus dimension_names (when set) as xarray's
// `_ARRAY_DIMENSIONS`; parse_zarray maps a valid `_ARRAY_DIMENSIONS` back to
// dimension_names and keeps the attribute. Throws invalid_metadata for a null
// name or a count other than ndim, which format 2 cannot store.
json to_zattrs(const ArrayMetadata& m);
json to_zgroup(const GroupMetadata& m);
// A group zarr.json carrying `c` inline, as zarr-python 3 writes it
// (unreadable nodes: their zarr.json as read; format 2 ones are left out).
json to_zarr_json(const GroupMetadata& m, const ConsolidatedMetadata& c);
// A v2 `.zmetadata` for the group `root` and the format 2 nodes below it
// (unreadable nodes: their .zarray/.zgroup/.zattrs as read).
json to_zmetadata(const GroupMetadata& root, const ConsolidatedMetadata& c);

// Builds the format 3 chain equivalent to v2 order/dtype endianness/filters/compressor.
std::vector<CodecSpec> v2_codec_chain(const ArrayMetadata::V2& v2, DataType t, std::size_t ndim,
                                      std::string_view path);

}  // namespace zarrgpu
