#pragma once
// ucudnn's messages on stderr, "ucudnn: <level>: ...", filtered by UCUDNN_LOG_LEVEL. A
// training job must not drown in repeats: warn_once prints a given warning once per process.
#include <string>
#include <string_view>

namespace ucudnn::shim {

enum class LogLevel { kError, kWarning, kInfo, kDebug };

// Parses "error", "warning", "info", "debug" (case-insensitive) or 0-3.
bool parse_log_level(std::string_view text, LogLevel& level);
void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);

void log(LogLevel level, const std::string& message);
// Prints the warning the first time `key` is seen; later calls with the same key are silent.
// True when this call was the first.
bool warn_once(const std::string& key, const std::string& message);

}  // namespace ucudnn::shim
