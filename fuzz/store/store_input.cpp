#include "store_input.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "engine/node_documents.hpp"
#include "zarrgpu/array.hpp"
#include "metadata/metadata.hpp"
#include "zarrgpu/config.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::fuzz {

namespace {

// Reads of at most this many bytes are made whole; larger arrays are read in
// a corner, so one input stays fast whatever shape it claims.
constexpr std::uint64_t kWholeReadBytes = std::uint64_t(4) << 20;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "store fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

template <class F>
void expect_documented(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::internal) finding("internal error", e.what());
  } catch (const std::bad_alloc&) {
    // The Python binding maps it to MemoryError and the CLI to a message, but
    // the metadata must bound every allocation: a finding here.
    finding("std::bad_alloc", "an allocation beyond what the metadata allows");
  } catch (const std::exception& e) {
    finding("undocumented exception", e.what());
  }
}

void read_array(const Array& a) {
  const auto& m = a.metadata();
  std::uint64_t bytes = size_of(m.data_type);
  bool small = true;
  for (auto n : m.shape) {
    if (n != 0 && bytes > kWholeReadBytes / n) { small = false; break; }
    bytes *= n;
  }
  if (small) expect_documented([&] { a.read(Selection()); });
  // A corner of at most 3 positions per dimension, forward and reversed.
  std::vector<DimSelection> corner, reversed;
  for (std::size_t d = 0; d < m.ndim(); ++d) {
    corner.push_back(DimSelection::slice(0, 3));
    reversed.push_back(DimSelection::slice(std::nullopt, std::nullopt, -2));
  }
  expect_documented([&] { a.read(Selection(corner)); });
  if (small) expect_documented([&] { a.read(Selection(reversed)); });
}

}  // namespace

std::shared_ptr<Store> load_store_archive(const std::uint8_t* data, std::size_t size) {
  auto store = make_memory_store();
  std::size_t pos = 0;
  while (pos < size) {
    const void* nul = std::memchr(data + pos, 0, size - pos);
    if (nul == nullptr) break;
    const std::size_t key_end = static_cast<const std::uint8_t*>(nul) - data;
    std::string key(reinterpret_cast<const char*>(data + pos), key_end - pos);
    pos = key_end + 1;
    if (size - pos < 4) break;
    const std::uint32_t n = std::uint32_t(data[pos]) | std::uint32_t(data[pos + 1]) << 8 |
                            std::uint32_t(data[pos + 2]) << 16 | std::uint32_t(data[pos + 3]) << 24;
    pos += 4;
    if (n > size - pos) break;
    try {
      store->write(key, std::as_bytes(std::span(data + pos, n)));
    } catch (const Error&) {
      // A key the store refuses ("", "..", "/abs") is simply not in it.
    }
    pos += n;
  }
  return store;
}

void run_store_input(const std::uint8_t* data, std::size_t size) {
  // run.sh gives libFuzzer -malloc_limit_mb=1024: a chunk or read the metadata
  // declares larger than this is refused as resource_exhausted (documented),
  // as it is on a machine of that size, before it could reach that limit.
  static const bool limited = [] {
    Config c = config();
    c.memory_limit = std::uint64_t(512) << 20;
    set_config(c);
    return true;
  }();
  (void)limited;
  auto store = load_store_archive(data, size);
  expect_documented([&] {
    const NodeMetadata root = open_node(*store, "");
    if (std::holds_alternative<ArrayMetadata>(root)) {
      read_array(Array::open(store, ""));
      return;
    }
    Group g = Group::open(store, "");
    std::map<std::string, TreeNode> tree;
    expect_documented([&] { tree = g.tree(); });
    for (const auto& entry : tree) {
      const std::string& path = entry.first;
      // An unreadable member must fail to open with a documented error too.
      if (std::holds_alternative<UnreadableNode>(entry.second)) {
        expect_documented([&] { g.open_array(path); });
        continue;
      }
      if (!std::holds_alternative<ArrayMetadata>(entry.second)) continue;
      expect_documented([&] { read_array(g.open_array(path)); });
    }
  });
}

}  // namespace zarrgpu::fuzz
