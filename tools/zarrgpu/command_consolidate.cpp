// zarrgpu consolidate STORE[/PATH]: (re)writes a group's consolidated metadata.
#include <iostream>

#include "engine/node_documents.hpp"
#include "cli_args.hpp"
#include "commands.hpp"
#include "node_tree.hpp"

namespace zarrgpu::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"path", true, "PATH", "the group inside STORE (default: found from STORE[/PATH])"},
    {"quiet", false, "", "print nothing on success"},
    {"help", false, "", "show this help"},
};

const char* kUsage =
    "usage: zarrgpu consolidate STORE[/PATH] [--path PATH]\n"
    "\n"
    "Writes the consolidated metadata of a group from its members' own metadata, as\n"
    "zarr-python's consolidate_metadata: inline in the group's zarr.json (format 3) or\n"
    "as .zmetadata (format 2). Run it after another tool changed a store without\n"
    "reconsolidating (zarrgpu's own writes keep existing consolidated metadata in step).\n"
    "\noptions:\n";

}  // namespace

int run_consolidate(const std::vector<std::string>& argv) {
  Args args = Args::parse(argv, kOptions);
  if (args.flag("help")) {
    std::cout << kUsage << format_options(kOptions);
    return 0;
  }
  if (args.positionals().size() != 1) throw UsageError("consolidate needs exactly one STORE argument");
  StoreLocation loc = locate_store(args.positionals()[0], args.value("path"));
  auto store = open_store(loc.root, false);
  if (std::holds_alternative<ArrayMetadata>(open_node(*store, loc.path)))
    throw Error(ErrorKind::invalid_argument,
                "'" + (loc.path.empty() ? std::string("/") : loc.path) + "' is an array; consolidate a group",
                {loc.path, "", "", store->describe()});
  consolidate_metadata(store, loc.path);
  if (!args.flag("quiet")) {
    const auto nodes = Group::open(store, loc.path, true).tree().size();
    std::cerr << "consolidated " << nodes << " nodes under " << (loc.path.empty() ? std::string("/") : loc.path)
              << " of " << store->describe() << "\n";
  }
  return 0;
}

}  // namespace zarrgpu::cli
