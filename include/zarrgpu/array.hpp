// Arrays and groups: the public C++ API.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "zarrgpu/buffer.hpp"
#include "zarrgpu/data_type.hpp"
#include "zarrgpu/device.hpp"
#include "zarrgpu/error.hpp"
#include "zarrgpu/read_report.hpp"
#include "zarrgpu/selection.hpp"
#include "zarrgpu/store.hpp"

namespace zarrgpu {

namespace engine { struct ArrayState; }

// The library's model of metadata documents (src/metadata/metadata.hpp). It is
// not part of the installed API: the library's own command, bindings and tests
// use the members that take or return it; other programs use the accessors
// that describe a node in standard types and JSON text.
struct ArrayMetadata;
struct GroupMetadata;
struct UnreadableNode;
struct ConsolidatedMetadata;
using TreeNode = std::variant<ArrayMetadata, GroupMetadata, UnreadableNode>;

struct ReadOptions {
  unsigned threads = 0;         // 0: hardware concurrency
  void* cuda_stream = nullptr;  // Device::cuda reads: the caller's stream (cudaStream_t)
  bool verify_checksums = true;
  // Device::cuda reads: the most device memory the read's pipeline (staging
  // copies, decoded scratch, decoder temp) may hold, e.g. a training loader's
  // share of its budget; 0: the environment's and the GPU's defaults
  // (Config's staging settings, zarrgpu/config.hpp).
  std::uint64_t device_memory_limit = 0;
  // Where to put what the read did (also kept for last_read_report()); may be null.
  ReadReport* report = nullptr;
};

struct WriteOptions {
  unsigned threads = 0;
  bool write_empty_chunks = false;  // false: chunks equal to the fill value are not stored (erased)
};

class Array {
 public:
  // Opens the array at `path` ("" = the store root); format 3 zarr.json first, then .zarray.
  static Array open(std::shared_ptr<Store> store, std::string path = "");
  // Writes metadata (zarr.json, or .zarray/.zattrs when metadata.zarr_format == 2).
  static Array create(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata,
                      bool overwrite = false);
  Array(std::shared_ptr<Store> store, std::string path, ArrayMetadata metadata);

  const ArrayMetadata& metadata() const noexcept { return *metadata_; }
  const std::string& path() const noexcept { return path_; }
  const std::shared_ptr<Store>& store() const noexcept { return store_; }

  // The metadata, described in standard types.
  int zarr_format() const noexcept;
  std::vector<std::uint64_t> shape() const;
  std::vector<std::uint64_t> chunk_shape() const;
  DataType dtype() const noexcept;
  // Per dimension its name, or nullopt (format 2: xarray's `_ARRAY_DIMENSIONS`);
  // empty when the metadata names none.
  std::vector<std::optional<std::string>> dimension_names() const;
  // The attributes, a JSON object as text.
  std::string attributes_json() const;
  // The array's metadata document as zarr-python writes it: zarr.json
  // (format 3) or .zarray (format 2, attributes in attributes_json()).
  std::string metadata_json() const;

  // Reads `selection` into `out`: C order, native byte order, exactly
  // product(result_shape) * size_of(dtype) bytes. Missing chunks read as the fill value.
  void read(const Selection& selection, std::span<std::byte> out, const ReadOptions& = {}) const;
  Bytes read(const Selection& selection = {}, const ReadOptions& = {}) const;
  // Device::cuda: `out` is a device pointer of the selection's byte size.
  void read(const Selection& selection, void* out, std::size_t out_bytes, Device device,
            const ReadOptions& = {}) const;

  // Writes `data` (C order, native byte order, the selection's shape) into the
  // selection; partial chunks are read, modified and written back.
  void write(const Selection& selection, std::span<const std::byte> data, const WriteOptions& = {});

  // Variable-length data types (string: UTF-8, bytes): one value per selected
  // element, C order. The fixed-size read and write above refuse these types,
  // and these refuse the others (Error invalid_argument).
  std::vector<std::string> read_variable_length(const Selection& selection = {}, const ReadOptions& = {}) const;
  void write_variable_length(const Selection& selection, std::span<const std::string> values,
                             const WriteOptions& = {});

  // The store key of a chunk at grid coordinates.
  std::string chunk_key(std::span<const std::uint64_t> chunk_coords) const;

  // Changes the shape (same rank) and rewrites the metadata document, and the
  // consolidated metadata above the array where there is some. Chunks (shards)
  // wholly outside the new shape are erased; a chunk cut by the new edge keeps
  // its bytes, as zarr-python's resize does.
  void resize(std::vector<std::uint64_t> new_shape);
  // Grows dimension `axis` by data_shape[axis] and writes `data` (C order,
  // native byte order, `data_shape`: the array's shape but along `axis`) into
  // the new region; the chunk or shard that held the old end is read,
  // completed and written again. Returns the new shape.
  std::vector<std::uint64_t> append(std::span<const std::byte> data, std::span<const std::uint64_t> data_shape,
                                    std::size_t axis = 0, const WriteOptions& = {});
  // Replaces the attributes (`attributes_json`: a JSON object, as text) and
  // rewrites the metadata documents (format 2: .zattrs, keeping
  // `_ARRAY_DIMENSIONS` from the dimension names) and the consolidated
  // metadata above. Error(invalid_metadata) for text that is not JSON, or
  // not a document zarrgpu writes (parse limits); Error(invalid_argument) for JSON
  // that is not an object.
  void set_attributes(std::string_view attributes_json);

 private:
  // Writes `m`'s documents (and the consolidated metadata above), then adopts it.
  void replace_metadata(ArrayMetadata m);

  std::shared_ptr<Store> store_;
  std::string path_;
  std::shared_ptr<const ArrayMetadata> metadata_;
  std::shared_ptr<const engine::ArrayState> state_;  // codec chains built once (src/engine)
};

class Group {
 public:
  // Opens the group at `path`. consolidated (as zarr-python's use_consolidated):
  // nullopt uses consolidated metadata when present; false reads every
  // member's own metadata; true requires consolidated metadata
  // (invalid_argument without it, as zarr-python's ValueError).
  static Group open(std::shared_ptr<Store> store, std::string path = "",
                    std::optional<bool> consolidated = std::nullopt);
  // A group without attributes, format 3 (zarr.json) or 2 (.zgroup).
  static Group create(std::shared_ptr<Store> store, std::string path, int zarr_format = 3, bool overwrite = false);
  static Group create(std::shared_ptr<Store> store, std::string path, GroupMetadata metadata,
                      bool overwrite = false);

  const GroupMetadata& metadata() const noexcept { return *metadata_; }
  const std::string& path() const noexcept { return path_; }
  int zarr_format() const noexcept;
  // The attributes, a JSON object as text.
  std::string attributes_json() const;
  bool is_consolidated() const noexcept { return consolidated_ != nullptr; }
  // Direct children (names), arrays and groups, readable or not. Without consolidated
  // metadata: one directory listing of the group and a metadata check per
  // child, never a walk of the chunks.
  std::vector<std::string> members() const;
  // Every node below, path relative to this group -> metadata (consolidated if
  // available). A node that cannot be opened (unsupported data type or codec,
  // broken metadata) is an UnreadableNode carrying the error opening it throws.
  std::map<std::string, TreeNode> tree() const;
  // One node below, as tree() lists it.
  TreeNode member(const std::string& relative_path) const;
  // Throw the node's own error for an unreadable node.
  Array open_array(const std::string& relative_path) const;
  Group open_group(const std::string& relative_path) const;
  // Replaces the group's attributes (a JSON object, as text): its documents and the
  // consolidated metadata above (and its own, format 2) are rewritten.
  void set_attributes(std::string_view attributes_json);

 private:
  std::shared_ptr<Store> store_;
  std::string path_;
  std::shared_ptr<const GroupMetadata> metadata_;
  std::shared_ptr<const ConsolidatedMetadata> consolidated_;  // null: none (or not used)
};

// Writes the consolidated metadata of the group at `path` from its members'
// own metadata (zarr.json inline for format 3, .zmetadata for format 2), as
// zarr-python's consolidate_metadata does.
void consolidate_metadata(std::shared_ptr<Store> store, const std::string& path = "");

}  // namespace zarrgpu
