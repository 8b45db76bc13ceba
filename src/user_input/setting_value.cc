#include "user_input/setting_value.h"

#include <string_view>

namespace ucudnn {

std::optional<std::string> setting_value(const Environment& getenv, const char* name,
                                         const char* alias, std::string& used) {
  for (const char* candidate : {name, alias}) {
    if (!candidate) continue;
    const char* value = getenv(candidate);
    if (!value) continue;
    std::string_view text = value;
    constexpr const char* kSpaces = " \t\r\n";
    const auto first = text.find_first_not_of(kSpaces);
    if (first == std::string_view::npos) continue;
    text = text.substr(first, text.find_last_not_of(kSpaces) - first + 1);
    used = candidate;
    return std::string(text);
  }
  return std::nullopt;
}

std::optional<std::string> ignored_alias_note(const Environment& getenv, const char* name,
                                              const char* alias) {
  std::string used;
  const auto named = setting_value(getenv, name, nullptr, used);
  const auto aliased = alias ? setting_value(getenv, alias, nullptr, used) : std::nullopt;
  if (!named || !aliased || *named == *aliased) return std::nullopt;
  return std::string(alias) + "='" + *aliased + "' is ignored: " + name + "='" + *named +
         "' is set too, and the new name wins";
}

}  // namespace ucudnn
