#include "shim/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "core/lru_map.h"
#include "core/text.h"

namespace ucudnn::shim {

namespace {
std::atomic<int> current_level{static_cast<int>(LogLevel::kWarning)};
constexpr const char* kNames[] = {"error", "warning", "info", "debug"};
}  // namespace

bool parse_log_level(std::string_view text, LogLevel& level) {
  // "warn" as most loggers spell it (it was refused).
  if (equals_ignoring_case(text, "warn")) text = "warning";
  for (int i = 0; i < 4; ++i)
    if (equals_ignoring_case(text, kNames[i]) || text == std::to_string(i)) {
      level = static_cast<LogLevel>(i);
      return true;
    }
  return false;
}

void set_log_level(LogLevel level) {
  current_level = static_cast<int>(level);
}

bool log_enabled(LogLevel level) {
  return static_cast<int>(level) <= current_level.load();
}

void log(LogLevel level, const std::string& message) {
  if (!log_enabled(level)) return;
  // One fprintf per line: lines from several threads never interleave.
  std::fprintf(stderr, "ucudnn: %s: %s\n", kNames[static_cast<int>(level)], message.c_str());
}

bool warn_once(const std::string& key, const std::string& message) {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  // Bounded: keys name kernels and limits, which an application may vary without end. A
  // warning forgotten that long ago may be said again.
  static auto& mutex = *new std::mutex;
  static auto& seen = *new LruMap<std::string, char>(4096);
  {
    std::lock_guard lock(mutex);
    if (!seen.insert(key)) return false;
  }
  log(LogLevel::kWarning, message);
  return true;
}

}  // namespace ucudnn::shim
