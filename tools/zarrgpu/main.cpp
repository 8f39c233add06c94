// zarrgpu: inspect, read, convert and generate Zarr stores.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "exit_code.hpp"
#include "zarrgpu/device.hpp"

#ifndef ZARRGPU_VERSION
#define ZARRGPU_VERSION "unknown"
#endif

namespace {

const char* kHelp =
    "usage: zarrgpu COMMAND [ARGS] [--help]\n"
    "\n"
    "Read and write Zarr (format 2 and 3) stores, on the CPU or through the GPU.\n"
    "\n"
    "commands:\n"
    "  info STORE[/PATH] [--json]                    groups, arrays, chunks, codecs, sizes\n"
    "  cat STORE --array PATH [--select SEL] --out FILE.npy [--device cpu|cuda:0]\n"
    "                                                a selection as a NumPy .npy file\n"
    "  convert SRC DST [--format 3|2] [--chunks SPEC] [--shard SPEC] [--codec C]\n"
    "                                                rechunk, recompress, shard, change format\n"
    "  append SRC DST --dim NAME                     grow DST's arrays along NAME by SRC's\n"
    "  consolidate STORE[/PATH]                      (re)write a group's consolidated metadata\n"
    "  serve [--socket PATH] [--budget BYTES] [--device cpu|cuda:N]\n"
    "                                                share cached arrays with other processes\n"
    "  generate era5 DST [--time 8] [--channels 4] [--lat 181] [--lon 360] [--variant zstd|sharded|raw]\n"
    "                                                an ERA5-like sample dataset\n"
    "\n"
    "  zarrgpu COMMAND --help    the command's options\n"
    "  zarrgpu --version         version and whether this build has the CUDA path\n"
    "\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    std::cerr << kHelp << zarrgpu::cli::exit_code_table();
    return zarrgpu::cli::kExitUsage;
  }
  const std::string cmd = words[0];
  std::vector<std::string> rest(words.begin() + 1, words.end());
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    if (cmd == "help" && !rest.empty()) {
      words = {rest[0], "--help"};
      return main(3, std::vector<char*>{argv[0], words[0].data(), words[1].data()}.data());
    }
    std::cout << kHelp << zarrgpu::cli::exit_code_table();
    return 0;
  }
  if (cmd == "--version" || cmd == "version") {
#ifdef ZARRGPU_HAVE_CUDA
    const char* cuda = "CUDA path: built in";
#else
    const char* cuda = "CUDA path: not built (CPU only)";
#endif
    std::cout << "zarrgpu " << ZARRGPU_VERSION << "\n" << cuda << "\n";
    return 0;
  }
  using namespace zarrgpu::cli;
  if (cmd == "info") return run_guarded(cmd, [&] { return run_info(rest); });
  if (cmd == "cat") return run_guarded(cmd, [&] { return run_cat(rest); });
  if (cmd == "convert") return run_guarded(cmd, [&] { return run_convert(rest); });
  if (cmd == "generate") return run_guarded(cmd, [&] { return run_generate(rest); });
  if (cmd == "append") return run_guarded(cmd, [&] { return run_append(rest); });
  if (cmd == "consolidate") return run_guarded(cmd, [&] { return run_consolidate(rest); });
  if (cmd == "serve") return run_guarded(cmd, [&] { return run_serve(rest); });
  std::cerr << "zarrgpu: unknown command '" << cmd << "'\n(see 'zarrgpu --help')\n";
  return kExitUsage;
}
