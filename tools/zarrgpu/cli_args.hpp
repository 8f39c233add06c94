// Command-line arguments of one subcommand: `--name value`, `--name=value`,
// boolean flags and positionals. A mistake is a UsageError (exit code 1).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace zarrgpu::cli {

// A mistake in how the command was called (unknown option, missing value...).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;        // without the leading "--"
  bool takes_value = true; // false: a flag
  std::string value_name;  // "N", "PATH" (for help)
  std::string help;
};

class Args {
 public:
  // Parses `tokens` (the words after the subcommand) against `specs`.
  // `--` ends the options; "-h" is "--help" when "help" is a flag in specs.
  static Args parse(const std::vector<std::string>& tokens, const std::vector<OptionSpec>& specs);

  bool flag(std::string_view name) const;
  std::optional<std::string> value(std::string_view name) const;
  std::string value_or(std::string_view name, std::string fallback) const;
  // Integer / unsigned values; a malformed number is a UsageError naming the option.
  std::optional<long long> integer(std::string_view name) const;
  const std::vector<std::string>& positionals() const noexcept { return positionals_; }

 private:
  std::map<std::string, std::string, std::less<>> values_;
  std::vector<std::string> positionals_;
};

// Strict integer parse of the whole string; nullopt when it is not one.
std::optional<long long> parse_integer(std::string_view s);

// "--name VALUE   help" lines, aligned.
std::string format_options(const std::vector<OptionSpec>& specs);

}  // namespace zarrgpu::cli
