#pragma once
// A setting's value as the environment gives it, read one way by the shim and by the tool (whose
// planning options take a job's settings as their defaults): the value of its name, else of its
// alias, without the spaces around it (an environment file's "on " means on, and its line end is
// none of the value); a value of spaces alone is unset.
#include <functional>
#include <optional>
#include <string>

namespace ucudnn {

using Environment = std::function<const char*(const char*)>;

// `used` gets the name that was set (the name or the alias), for messages.
std::optional<std::string> setting_value(const Environment& getenv, const char* name,
                                         const char* alias, std::string& used);

// Where both `name` and `alias` are set, to different values: a note that the alias's is
// ignored (a job script that sets the old name beside an inherited new one is otherwise puzzled
// that its value does nothing). nullopt where at most one is set, or both say the same.
std::optional<std::string> ignored_alias_note(const Environment& getenv, const char* name,
                                              const char* alias);

}  // namespace ucudnn
