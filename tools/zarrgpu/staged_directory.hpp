// A destination directory written in full or not at all: commands write into
// DST.partial-XXXXXX beside DST and rename it to DST at the end; a failure (or
// Ctrl-C) removes the partial directory, so no half-written store is left.
#pragma once

#include <string>

namespace zarrgpu::cli {

class StagedDirectory {
 public:
  // Throws Error(invalid_argument) when `destination` exists and !overwrite,
  // Error(io) when the staging directory cannot be created.
  StagedDirectory(std::string destination, bool overwrite);
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
  bool committed_ = false;
};

// Ctrl-C / SIGTERM during a long command: the first one asks workers to stop
// (they check cancelled()) so cleanup runs; a second one kills the process.
void install_cancel_handlers();
bool cancelled() noexcept;

}  // namespace zarrgpu::cli
