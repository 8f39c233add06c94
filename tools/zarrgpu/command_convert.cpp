// zarrgpu convert SRC DST: rechunk, recompress, shard, change format.
#include <iostream>
#include <set>
#include <thread>

#include "block_plan.hpp"
#include "byte_size.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "consolidated_writer.hpp"
#include "convert_layout.hpp"
#include "node_tree.hpp"
#include "parallel_blocks.hpp"
#include "progress.hpp"
#include "staged_directory.hpp"
#include "stored_blocks.hpp"

namespace zarrgpu::cli {

namespace {

// Bytes per element that blocks of string and bytes arrays are planned with.
constexpr std::size_t kVariableLengthPlanBytes = 16;

const std::vector<OptionSpec> kOptions = {
    {"format", true, "3|2", "Zarr format of DST (default: the source's)"},
    {"chunks", true, "SPEC", "chunk shape: 1,721,1440 or time=1,lat=721 (names: dimension_names / "
                             "_ARRAY_DIMENSIONS; 'full' = the whole extent; default: the source's); "
                             "PATH:SPEC for one array; several specs separated by ';'"},
    {"shard", true, "SPEC", "shard shape (format 3): same forms; the chunks become the inner chunks"},
    {"codec", true, "C", "zstd[:L] | gzip[:L] | blosc[:CNAME[:CLEVEL[:SHUFFLE]]] | none, +crc32c "
                         "(default: the source's codecs)"},
    {"array", true, "PATH", "convert only this array of SRC (it becomes DST's root array)"},
    {"path", true, "PATH", "the node of SRC to convert (a group or an array)"},
    {"memory", true, "SIZE", "memory budget for blocks in flight (default 2GiB)"},
    {"threads", true, "N", "worker threads (default: all cores)"},
    {"overwrite", false, "", "replace DST if it exists (in one atomic swap where the file system allows)"},
    {"no-fsync", false, "", "skip syncing DST to disk before it is renamed into place (scratch output)"},
    {"no-consolidate", false, "", "do not write consolidated metadata for a group"},
    {"no-consolidated", false, "", "read SRC's members' own metadata, not its consolidated metadata"},
    {"quiet", false, "", "no progress report"},
    {"help", false, "", "show this help"},
};

const char* kUsage =
    "usage: zarrgpu convert SRC DST [--format 3|2] [--chunks SPEC] [--shard SPEC] [--codec C]\n"
    "                               [--array PATH] [--memory 2GiB] [--overwrite]\n"
    "\n"
    "Copies a group tree (groups, arrays, attributes) or one array from SRC to a new\n"
    "store DST, rechunked, recompressed, sharded or in another Zarr format. Example, one\n"
    "time step per chunk in Zarr v3 with zstd:\n"
    "  zarrgpu convert era5.zarr era5-v3.zarr --format 3 --chunks time=1 --codec zstd:3\n"
    "Data moves in blocks of whole destination chunks (whole shards when sharded), read\n"
    "from SRC and written to DST by parallel workers, with at most --memory bytes of blocks\n"
    "in flight, so arrays larger than memory convert. Without --chunks, a sharded source\n"
    "keeps its shards (format 3). In a group, names in --chunks/--shard apply to the arrays\n"
    "that have them, and sizes for every dimension to the arrays with that many dimensions;\n"
    "1-D coordinates (an array 'time' along dimension 'time') keep their chunks unless named\n"
    "by path: --chunks 'time=1;time:time=full' or --chunks t2m:time=1.\n"
    "DST is written as DST.partial-XXXXXX, synced to disk and renamed at the end: on failure\n"
    "or Ctrl-C nothing is left behind, and what a killed run left is repaired by the next.\n"
    "\noptions:\n";

struct Job {
  std::string src_path, dst_path;
  NodeMetadata dst_meta;
};

}  // namespace

int run_convert(const std::vector<std::string>& argv) {
  Args args = Args::parse(argv, kOptions);
  if (args.flag("help")) {
    std::cout << kUsage << format_options(kOptions);
    return 0;
  }
  if (args.positionals().size() != 2) throw UsageError("convert needs SRC and DST");
  const std::string src_arg = args.positionals()[0], dst = args.positionals()[1];
  if (args.value("array") && args.value("path")) throw UsageError("give --array or --path, not both");

  ConvertOptions opt;
  if (auto f = args.integer("format")) {
    if (*f != 2 && *f != 3) throw UsageError("--format must be 2 or 3");
    opt.format = static_cast<int>(*f);
  }
  if (auto c = args.value("chunks")) opt.chunks = parse_chunk_rules(*c, "--chunks");
  if (auto s = args.value("shard")) opt.shard = parse_chunk_rules(*s, "--shard");
  if (auto c = args.value("codec")) opt.codec = parse_codec_option(*c);
  std::uint64_t budget = 2ull << 30;
  if (auto m = args.value("memory")) {
    auto b = parse_byte_size(*m);
    if (!b || *b == 0) throw UsageError("bad --memory '" + *m + "' (e.g. 512MiB, 2GiB)");
    budget = *b;
  }
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  if (auto t = args.integer("threads")) {
    if (*t < 1) throw UsageError("--threads must be at least 1");
    threads = static_cast<unsigned>(*t);
  }

  auto explicit_path = args.value("array") ? args.value("array") : args.value("path");
  NodeTree tree = open_tree(locate_store(src_arg, explicit_path),
                            args.flag("no-consolidated") ? std::optional<bool>(false) : std::nullopt);
  // A copy needs every node: the first unreadable one stops it, with its own error.
  for (const auto& e : tree.nodes)
    if (const auto* u = std::get_if<UnreadableNode>(&e.metadata)) throw u->error;
  if (args.value("array") && !tree.nodes.front().is_array())
    throw Error(ErrorKind::invalid_argument, "'" + *args.value("array") + "' is a group; use --path for a group",
                {tree.location.path, "", "", tree.store->describe()});
  const bool root_is_group = !tree.nodes.front().is_array();
  opt.strict_names = !root_is_group;

  // Every name in --chunks/--shard must belong to some array, and every path
  // must be an array (a typo is an error, not a no-op).
  std::set<std::string> all_names, array_paths;
  std::set<std::size_t> all_ndims;
  for (const auto& e : tree.nodes)
    if (e.is_array()) {
      for (const auto& n : dimension_names_of(std::get<ArrayMetadata>(e.metadata))) all_names.insert(n);
      all_ndims.insert(std::get<ArrayMetadata>(e.metadata).shape.size());
      array_paths.insert(relative_node_path(e.path, tree.location.path));
    }
  for (const auto* rules : {opt.chunks ? &*opt.chunks : nullptr, opt.shard ? &*opt.shard : nullptr}) {
    if (!rules) continue;
    for (const auto& [p, _] : rules->by_path)
      if (!array_paths.count(p))
        throw UsageError("no array '" + p + "' under '" + src_arg + "' (named in --chunks/--shard)");
    if (!rules->general || !root_is_group) continue;
    const ChunkOption& o = *rules->general;
    for (const auto& [name, _] : o.named)
      if (!all_names.count(name))
        throw UsageError("no array under '" + src_arg + "' has a dimension named '" + name + "'");
    if (!o.is_named() && !all_ndims.count(o.sizes.size()))
      throw UsageError("no array under '" + src_arg + "' has " + std::to_string(o.sizes.size()) + " dimensions");
  }

  // Destination metadata first: every option problem shows before anything is written.
  const int dst_format = opt.format.value_or(tree.nodes.front().zarr_format());
  std::vector<Job> jobs;
  std::uint64_t total_bytes = 0;
  for (const auto& e : tree.nodes) {
    Job j{e.path, relative_node_path(e.path, tree.location.path), {}};
    if (e.is_array()) {
      const auto& m = std::get<ArrayMetadata>(e.metadata);
      j.dst_meta = convert_array_metadata(j.dst_path, m, opt);
      // The engine reads and writes no sharded string or bytes arrays.
      if (is_variable_length(m.data_type) && std::get<ArrayMetadata>(j.dst_meta).codecs.front().name == "sharding_indexed")
        throw Error(ErrorKind::unsupported,
                    "the variable-length data type " + describe(m.data_type) + " cannot be sharded",
                    {e.path, "", "", tree.store->describe()});
      total_bytes += m.num_elements() * (is_variable_length(m.data_type) ? kVariableLengthPlanBytes : size_of(m.data_type));
    } else {
      GroupMetadata g = std::get<GroupMetadata>(e.metadata);
      g.zarr_format = dst_format;
      j.dst_meta = g;
    }
    jobs.push_back(std::move(j));
  }

  install_cancel_handlers();
  for (const auto& note : repair_leftovers(dst)) std::cerr << "zarrgpu convert: " << note << "\n";
  StagedDirectory staged(dst, args.flag("overwrite"), !args.flag("no-fsync"));
  auto out = open_local_store(staged.staging_path(), true, WriteSync::none);  // synced as a tree at commit
  Progress progress("convert", total_bytes, Progress::mode_for(stderr, args.flag("quiet")));
  try {
    for (const auto& j : jobs) {
      if (const auto* g = std::get_if<GroupMetadata>(&j.dst_meta)) {
        Group::create(out, j.dst_path, *g);
        continue;
      }
      const auto& dm = std::get<ArrayMetadata>(j.dst_meta);
      Array src = Array::open(tree.store, j.src_path);
      Array dst_array = Array::create(out, j.dst_path, dm);
      // Variable-length elements have no fixed size: blocks are planned as if each
      // took kVariableLengthPlanBytes (their values' lengths are unknown until read).
      const bool variable_length = is_variable_length(dm.data_type);
      const std::size_t itemsize = variable_length ? kVariableLengthPlanBytes : size_of(dm.data_type);
      BlockPlan plan = plan_blocks(dm.shape, itemsize, dm.chunk_shape, source_inner_chunks(src.metadata()),
                                   budget, threads, write_copies(dm.codecs));
      if (plan.over_budget && !args.flag("quiet"))
        std::cerr << "zarrgpu convert: warning: one write unit of '" << (j.dst_path.empty() ? "/" : j.dst_path)
                  << "' (" << format_bytes(static_cast<double>(plan.block_bytes)) << ", about "
                  << format_bytes(static_cast<double>(plan.block_bytes * write_copies(dm.codecs)))
                  << " while it is encoded) is larger than --memory; converting it one unit at a time\n";
      // Blocks without a stored source chunk are all fill value; with the
      // same fill value the destination stores nothing for them either.
      std::optional<std::set<std::uint64_t>> stored;
      // A store that cannot list (HTTP) has every block read.
      if (src.metadata().fill_value == dm.fill_value && src.metadata().data_type == dm.data_type) {
        try {
          stored = blocks_with_stored_chunks(tree.store->list(j.src_path), j.src_path, src.metadata(), plan);
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::unsupported) throw;
        }
      }
      ReadOptions ro;
      ro.threads = std::max(1u, threads / plan.workers);
      WriteOptions wo;
      wo.threads = ro.threads;
      auto copy_block = [&](std::uint64_t b) {
        Selection sel = plan.block(b);
        if (variable_length) {
          const std::vector<std::string> values = src.read_variable_length(sel, ro);
          dst_array.write_variable_length(sel, values, wo);
          progress.add(plan.block_elements(b) * itemsize);
          return;
        }
        Bytes block = src.read(sel, ro);
        dst_array.write(sel, block.span(), wo);
        progress.add(block.size());
      };
      if (stored) {
        // Only the blocks with stored chunks are visited: an empty array of
        // 2^61 elements has 2^41 blocks, too many to even skip one by one.
        const std::vector<std::uint64_t> ids(stored->begin(), stored->end());
        std::uint64_t copied = 0;
        for (std::uint64_t b : ids) copied += plan.block_elements(b) * itemsize;
        progress.add(src.metadata().num_elements() * itemsize - copied);
        for_each_block(ids.size(), plan.workers, [&](std::uint64_t i) { copy_block(ids[i]); });
      } else {
        for_each_block(plan.block_count, plan.workers, copy_block);
      }
    }
    if (root_is_group && !args.flag("no-consolidate")) {
      std::vector<std::pair<std::string, NodeMetadata>> nodes;
      for (std::size_t i = 1; i < jobs.size(); ++i) nodes.emplace_back(jobs[i].dst_path, jobs[i].dst_meta);
      write_consolidated(*out, std::get<GroupMetadata>(jobs.front().dst_meta), nodes);
    }
  } catch (...) {
    progress.finish(false);
    throw;
  }
  progress.finish();
  out.reset();
  staged.commit();
  return 0;
}

}  // namespace zarrgpu::cli
