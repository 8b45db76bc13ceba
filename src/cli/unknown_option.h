#pragma once
// What is said of an option that the command given does not have, with the name of the nearest
// one it has: "unknown option --worksapce-limit (did you mean --workspace-limit?)". CLI11 alone
// says "The following arguments were not expected: 8MiB --worksapce-limit".
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace ucudnn::cli {

// For the first "--name" or "--name=value" of `argv` that `command` (the last command the line
// gave) and the commands above it have no option for; nullopt where there is none (the error is
// about something else: CLI11's message then stands).
std::optional<std::string> unknown_option(const CLI::App& command, int argc, char** argv);

}  // namespace ucudnn::cli
