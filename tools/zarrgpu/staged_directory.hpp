// A destination directory written in full or not at all: commands write into
// DST.partial-XXXXXX beside DST and rename it to DST at the end; a failure (or
// Ctrl-C) removes the partial directory, so no half-written store is left.
//
// Replacing an existing DST swaps the two directories in one step
// (renameat2 RENAME_EXCHANGE) where the file system has it; elsewhere DST is
// first renamed to DST.old-XXXXXX, then the new one into place. A process
// killed anywhere leaves at most these names, and the next run for the same
// DST repairs them (repair_leftovers, before staging): a DST.old-* with no DST is
// moved back (the interrupted overwrite never happened), one beside a DST is
// removed, and DST.partial-* directories are removed. A running command holds
// a lock (flock) on its directories, so a concurrent one leaves them alone.
//
// The finished store is durable: every file and directory in it is fsync'ed
// before the rename, and the parent after it (skip with durable = false for
// scratch output). The store's directory follows the umask.
#pragma once

#include <string>
#include <vector>

namespace zarrgpu::cli {

class StagedDirectory {
 public:
  // Throws Error(invalid_argument) when `destination` exists and !overwrite,
  // Error(io) when the staging directory cannot be created.
  StagedDirectory(std::string destination, bool overwrite, bool durable = true);
  ~StagedDirectory();  // removes the staging directory unless committed
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  const std::string& staging_path() const noexcept { return staging_; }
  const std::string& destination() const noexcept { return destination_; }
  // Moves the staging directory to the destination (replacing it when overwrite).
  void commit();

 private:
  std::string destination_;
  std::string staging_;
  bool overwrite_;
  bool durable_;
  bool committed_ = false;
  int lock_fd_ = -1;  // the staging directory, flock'ed while this run owns it
};

// Repairs what killed runs for `destination` left beside it (see above);
// returns one sentence per leftover repaired, for the command to print.
std::vector<std::string> repair_leftovers(const std::string& destination);

// Ctrl-C / SIGTERM during a long command: the first one asks workers to stop
// (they check cancelled()) so cleanup runs; a second one kills the process.
void install_cancel_handlers();
bool cancelled() noexcept;

}  // namespace zarrgpu::cli
