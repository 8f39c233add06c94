// The subcommands of `zarrgpu`. Each takes the words after its name, prints
// its own --help, and returns 0 or throws (UsageError -> exit 1, Error -> its
// ErrorKind value; see main.cpp).
#pragma once

#include <string>
#include <vector>

namespace zarrgpu::cli {

int run_info(const std::vector<std::string>& args);
int run_cat(const std::vector<std::string>& args);
int run_convert(const std::vector<std::string>& args);
int run_generate(const std::vector<std::string>& args);
int run_append(const std::vector<std::string>& args);
int run_consolidate(const std::vector<std::string>& args);
int run_serve(const std::vector<std::string>& args);

}  // namespace zarrgpu::cli
