#include "unknown_option.h"

#include <string_view>
#include <vector>

#include "user_input/typing_distance.h"

namespace ucudnn::cli {

namespace {

// Whether `command` or a command above it has the option "--`name`".
bool known(const CLI::App& command, const std::string& name) {
  for (const CLI::App* at = &command; at; at = at->get_parent())
    if (at->get_option_no_throw("--" + name)) return true;
  return false;
}

}  // namespace

std::optional<std::string> unknown_option(const CLI::App& command, int argc, char** argv) {
  std::vector<std::string> names;  // the command's long names, without their dashes
  for (const CLI::Option* option : command.get_options())
    for (const std::string& name : option->get_lnames()) names.push_back(name);
  const std::vector<std::string_view> candidates(names.begin(), names.end());
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;  // what follows is no option
    if (word.size() < 3 || word.compare(0, 2, "--") != 0) continue;
    const std::string name = word.substr(2, word.find('=') - 2);
    if (known(command, name)) continue;
    std::string said = "unknown option --" + name;
    // One mistake in a short name, two in a longer one.
    const std::size_t allowed = name.size() > 6 ? 2 : 1;
    if (const auto nearest = nearest_within(name, candidates, allowed))
      said += " (did you mean --" + std::string(*nearest) + "?)";
    return said;
  }
  return std::nullopt;
}

}  // namespace ucudnn::cli
