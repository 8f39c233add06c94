#include "exit_code.hpp"

#include <filesystem>
#include <iostream>
#include <new>

#include "cli_args.hpp"
#include "parallel_blocks.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::cli {

std::string exit_code_table() {
  std::string t = "exit codes:\n  0  ok\n  1  usage error (unknown option, missing argument)\n";
  for (int k = 2; k <= 10; ++k) {
    t += "  " + std::to_string(k) + "  " + to_string(static_cast<ErrorKind>(k));
    switch (static_cast<ErrorKind>(k)) {
      case ErrorKind::invalid_argument: t += " (bad selection or option value, DST exists)"; break;
      case ErrorKind::not_found: t += " (missing store, array or metadata)"; break;
      case ErrorKind::invalid_metadata: t += " (bad zarr.json / .zarray)"; break;
      case ErrorKind::unsupported: t += " (codec or data type not implemented, no CUDA path in this build)"; break;
      case ErrorKind::corrupt_data: t += " (a chunk that does not decode; the message names array, chunk and codec)"; break;
      case ErrorKind::resource_exhausted:
        t += " (a chunk or selection larger than memory or ZARRGPU_MEMORY_LIMIT, or out of memory)";
        break;
      default: break;
    }
    t += "\n";
  }
  t += "  130  interrupted (Ctrl-C); a partial DST is removed\n";
  return t;
}

int run_guarded(const std::string& command, const std::function<int()>& fn) {
  const std::string who = command.empty() ? "zarrgpu" : "zarrgpu " + command;
  try {
    return fn();
  } catch (const UsageError& e) {
    std::cerr << who << ": " << e.what() << "\n(see '" << who << " --help')\n";
    return kExitUsage;
  } catch (const Error& e) {
    std::cerr << who << ": error: " << e.what() << "\n";
    return static_cast<int>(e.kind());
  } catch (const Interrupted&) {
    std::cerr << who << ": interrupted\n";
    return kExitInterrupted;
  } catch (const std::bad_alloc&) {
    std::cerr << who << ": error: " << to_string(ErrorKind::resource_exhausted)
              << ": out of memory (try a smaller --select or --memory)\n";
    return static_cast<int>(ErrorKind::resource_exhausted);
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << who << ": error: " << e.what() << "\n";
    return static_cast<int>(ErrorKind::io);
  } catch (const std::exception& e) {
    std::cerr << who << ": internal error: " << e.what() << "\n";
    return static_cast<int>(ErrorKind::internal);
  } catch (...) {
    std::cerr << who << ": internal error\n";
    return static_cast<int>(ErrorKind::internal);
  }
}

}  // namespace zarrgpu::cli
