#include "help_formatter.h"

#include <algorithm>
#include <vector>

namespace ucudnn::cli {

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  std::string opts = CLI::Formatter::make_option_opts(option);
  // CLI11 appends " Excludes: --a --b" last; the description says it instead.
  if (!option->get_excludes().empty())
    if (const auto at = opts.rfind(" " + get_label("Excludes") + ":"); at != std::string::npos)
      opts.erase(at);
  return opts;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  std::string description = CLI::Formatter::make_option_desc(option);
  std::vector<std::string> names;  // by name: CLI11 keeps them in a set of pointers
  for (const CLI::Option* other : option->get_excludes()) names.push_back(other->get_name());
  std::sort(names.begin(), names.end());
  std::string excluded;
  for (const auto& name : names) excluded += (excluded.empty() ? "" : " or ") + name;
  if (!excluded.empty()) description += " (not with " + excluded + ")";
  return description;
}

}  // namespace ucudnn::cli
