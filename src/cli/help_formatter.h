#pragma once
// `--help` as the commands print it: CLI11's layout, with an option's exclusions said in its
// description ("(not with --json)") rather than in its name's column, where CLI11 puts them
// ("--json Excludes: --explain") and they read as part of the option's syntax.
#include <CLI/CLI.hpp>

#include <string>

namespace ucudnn::cli {

class HelpFormatter final : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* option) const override;
  std::string make_option_desc(const CLI::Option* option) const override;
};

}  // namespace ucudnn::cli
