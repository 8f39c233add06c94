// zarrgpu append SRC DST --dim NAME: grows a time series store by another.
#include <iostream>
#include <map>

#include "block_plan.hpp"
#include "byte_size.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "convert_layout.hpp"
#include "node_tree.hpp"
#include "progress.hpp"

namespace zarrgpu::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"dim", true, "NAME", "the dimension to append along (required): dimension_names / _ARRAY_DIMENSIONS"},
    {"memory", true, "SIZE", "memory budget for one block (default 2GiB)"},
    {"no-consolidated", false, "", "read SRC's and DST's members' own metadata, not consolidated metadata"},
    {"quiet", false, "", "no progress report"},
    {"help", false, "", "show this help"},
};

const char* kUsage =
    "usage: zarrgpu append SRC DST --dim NAME [--memory 2GiB]\n"
    "\n"
    "Appends every array of SRC that has the dimension NAME to the array of the same\n"
    "path in DST, along that dimension (e.g. new time steps, the time coordinate\n"
    "included): each DST array grows, the chunk or shard that held its old end is\n"
    "completed, and DST's consolidated metadata, if any, is rewritten. Arrays without\n"
    "NAME (lat, lon) are left alone. The other dimensions and data types must match;\n"
    "values are copied as stored, so CF attributes (time units, scale_factor) must\n"
    "agree between the two stores. Everything is checked before DST changes.\n"
    "\noptions:\n";

struct Pair {
  std::string path;  // relative to the two roots
  Array src, dst;
  std::size_t axis;
};

std::optional<std::size_t> axis_named(const ArrayMetadata& m, const std::string& name) {
  const auto names = dimension_names_of(m);
  for (std::size_t d = 0; d < names.size(); ++d)
    if (names[d] == name) return d;
  return std::nullopt;
}

}  // namespace

int run_append(const std::vector<std::string>& argv) {
  Args args = Args::parse(argv, kOptions);
  if (args.flag("help")) {
    std::cout << kUsage << format_options(kOptions);
    return 0;
  }
  if (args.positionals().size() != 2) throw UsageError("append needs SRC and DST");
  auto dim = args.value("dim");
  if (!dim || dim->empty()) throw UsageError("append needs --dim NAME");
  std::uint64_t budget = 2ull << 30;
  if (auto m = args.value("memory")) {
    auto b = parse_byte_size(*m);
    if (!b || *b == 0) throw UsageError("bad --memory '" + *m + "' (e.g. 512MiB, 2GiB)");
    budget = *b;
  }
  const std::optional<bool> consolidated =
      args.flag("no-consolidated") ? std::optional<bool>(false) : std::nullopt;
  NodeTree src = open_tree(locate_store(args.positionals()[0], std::nullopt), consolidated);
  NodeTree dst = open_tree(locate_store(args.positionals()[1], std::nullopt), consolidated);
  std::map<std::string, const NodeEntry*> dst_nodes;
  for (const auto& e : dst.nodes) dst_nodes[relative_node_path(e.path, dst.location.path)] = &e;

  // Every pair is checked before anything is written.
  std::vector<Pair> pairs;
  std::uint64_t total = 0;
  for (const auto& e : src.nodes) {
    if (!e.is_array()) continue;
    if (!axis_named(std::get<ArrayMetadata>(e.metadata), *dim)) continue;
    const std::string rel = relative_node_path(e.path, src.location.path);
    const std::string shown = rel.empty() ? "/" : rel;
    auto it = dst_nodes.find(rel);
    if (it == dst_nodes.end() || !it->second->is_array())
      throw Error(ErrorKind::not_found, "DST has no array '" + shown + "' to append to", {rel, "", "", dst.store->describe()});
    // The arrays' own metadata, whatever the consolidated metadata says: a
    // stale shape there would put the new steps at the wrong place.
    Array src_array = Array::open(src.store, e.path), dst_array = Array::open(dst.store, it->second->path);
    const auto& sm = src_array.metadata();
    const auto& dm = dst_array.metadata();
    const auto axis = axis_named(sm, *dim);
    if (!axis) continue;
    if (axis_named(dm, *dim) != axis)
      throw Error(ErrorKind::invalid_argument, "'" + shown + "' has dimension '" + *dim + "' at another place in DST",
                  {rel, "", "", dst.store->describe()});
    if (dm.data_type != sm.data_type)
      throw Error(ErrorKind::invalid_argument, "'" + shown + "' is " + std::string(v3_name(sm.data_type)) +
                                                   " in SRC and " + std::string(v3_name(dm.data_type)) + " in DST",
                  {rel, "", "", dst.store->describe()});
    for (std::size_t d = 0; d < sm.shape.size(); ++d)
      if (d != *axis && sm.shape[d] != dm.shape[d])
        throw Error(ErrorKind::invalid_argument, "'" + shown + "' has extent " + std::to_string(sm.shape[d]) +
                                                     " in SRC and " + std::to_string(dm.shape[d]) + " in DST along dimension " +
                                                     std::to_string(d),
                    {rel, "", "", dst.store->describe()});
    total += sm.num_elements() * size_of(sm.data_type);
    pairs.push_back({rel, std::move(src_array), std::move(dst_array), *axis});
  }
  if (pairs.empty())
    throw Error(ErrorKind::invalid_argument, "no array of SRC has a dimension named '" + *dim + "'",
                {"", "", "", src.store->describe()});

  Progress progress("append", total, Progress::mode_for(stderr, args.flag("quiet")));
  try {
    for (auto& p : pairs) {
      const auto& sm = p.src.metadata();
      std::vector<std::uint64_t> grown = p.dst.shape();
      const std::uint64_t offset = grown[p.axis];
      grown[p.axis] += sm.shape[p.axis];
      p.dst.resize(grown);
      // One block at a time, in order: a block may share its first chunk (the
      // old end) with the one before, and a chunk is read, completed and written.
      BlockPlan plan = plan_blocks(sm.shape, size_of(sm.data_type), p.dst.metadata().chunk_shape,
                                   source_inner_chunks(sm), budget, 1, write_copies(p.dst.metadata().codecs));
      for (std::uint64_t b = 0; b < plan.block_count; ++b) {
        const Selection sel = plan.block(b);
        Bytes block = p.src.read(sel);
        std::vector<DimSelection> at = sel.dims();
        at[p.axis].start = *at[p.axis].start + std::int64_t(offset);
        at[p.axis].stop = *at[p.axis].stop + std::int64_t(offset);
        p.dst.write(Selection(std::move(at)), block.span());
        progress.add(block.size());
      }
    }
  } catch (...) {
    progress.finish(false);
    throw;
  }
  progress.finish();
  if (!args.flag("quiet")) {
    for (const auto& p : pairs) {
      std::cerr << "appended " << p.src.shape()[p.axis] << " along '" << *dim << "' to "
                << (p.path.empty() ? std::string("/") : p.path) << " (now " << p.dst.shape()[p.axis] << ")\n";
    }
  }
  return 0;
}

}  // namespace zarrgpu::cli
