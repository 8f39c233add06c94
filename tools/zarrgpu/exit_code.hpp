// Exit codes a script can rely on (printed by `zarrgpu --help`):
//   0 ok, 1 usage error, 2..9 the zarrgpu::ErrorKind values, 130 interrupted.
#pragma once

#include <functional>
#include <string>

namespace zarrgpu::cli {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 1;
constexpr int kExitInterrupted = 130;

// The help text's table of exit codes.
std::string exit_code_table();

// Runs `fn`, printing any failure as "zarrgpu <command>: error: ..." on stderr
// and mapping it to an exit code. Never lets an exception escape.
int run_guarded(const std::string& command, const std::function<int()>& fn);

}  // namespace zarrgpu::cli
