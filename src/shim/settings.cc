#include "shim/settings.h"

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string_view>

#include "core/text.h"
#include "shim/log.h"
#include "user_input/byte_size.h"
#include "user_input/device_list.h"
#include "user_input/duration.h"
#include "user_input/setting_names.h"
#include "user_input/setting_value.h"

namespace ucudnn::shim {

namespace {

std::string rejected(const std::string& name, const std::string& value, const std::string& why,
                     const std::string& fallback) {
  return name + "='" + value + "' " + why + "; using " + fallback;
}

// A switch's value: true for 1/true/yes/on, false for 0/false/no/off, nullopt otherwise.
std::optional<bool> switch_value(std::string_view v) {
  for (const char* on : {"1", "true", "yes", "on"})
    if (equals_ignoring_case(v, on)) return true;
  for (const char* off : {"0", "false", "no", "off"})
    if (equals_ignoring_case(v, off)) return false;
  return std::nullopt;
}

constexpr const char* kSwitchValues = "is not 1/true/yes/on or 0/false/no/off";

// A whole number from `low` to `high` (as the text says it, nothing after it); nullopt else.
std::optional<long> count_within(const std::string& text, long low, long high) {
  char* end = nullptr;
  const long count = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || count < low || count > high) return std::nullopt;
  return count;
}

}  // namespace

Settings read_settings(const Environment& getenv,
                       const std::function<void(const std::string&)>& warn) {
  Settings settings;
  std::string used;
  if (const auto value = setting_value(getenv, "UCUDNN_DISABLE", nullptr, used)) {
    if (const auto on = switch_value(*value)) {
      settings.disabled = *on;
    } else {
      // Set to turn ucudnn off, as a rule: an unreadable value leaves the application's calls
      // as they are rather than planning them against its wish.
      settings.disabled = true;
      warn(rejected(used, *value, kSwitchValues,
                    "1 (ucudnn off: the variable is set to turn it off)"));
    }
  }
  if (const auto value = setting_value(getenv, "UCUDNN_BATCH_SIZE_POLICY", nullptr, used)) {
    if (auto policy = parse_batch_size_policy(*value))
      settings.policy = *policy;
    else
      warn(used + ": " + policy.error() + "; using the default: powerOfTwo");
  }
  for (auto [name, alias, target] :
       {std::tuple{"UCUDNN_WORKSPACE_LIMIT", "UCUDNN_DEFAULT_WORKSPACE_LIMIT",
                   &settings.workspace_limit},
        std::tuple{"UCUDNN_TOTAL_WORKSPACE_SIZE", static_cast<const char*>(nullptr),
                   &settings.total_workspace}}) {
    if (const auto note = ignored_alias_note(getenv, name, alias)) warn(*note);
    if (const auto value = setting_value(getenv, name, alias, used)) {
      if (auto bytes = parse_byte_size(*value)) {
        *target = *bytes;
        if (const auto note = unitless_size_note(*value)) warn(used + "=" + *note);
        if (target == &settings.workspace_limit)
          if (const auto note = zero_limit_note(*value)) warn(used + "=" + *note);
      } else
        warn(used + ": " + bytes.error() + "; using the default: " +
             (target == &settings.workspace_limit ? "the application's workspace size, else " +
                                                        format_byte_size(kDefaultWorkspaceLimit)
                                                  : std::string("no total workspace (WR)")));
    }
  }
  // UCUDNN_DATABASE and UCUDNN_SYSTEM_DATABASE: the database library reads them itself
  // (db/default_store.h), so that the shim and the tool always agree.
  if (const auto value = setting_value(getenv, "UCUDNN_DATABASE_LOCK_TIMEOUT", nullptr, used)) {
    if (auto timeout = parse_duration(*value)) {
      settings.database_lock_timeout = *timeout;
      if (const auto note = unitless_duration_note(*value)) warn(used + "=" + *note);
    } else
      warn(rejected(used, *value, "is not a duration of at most an hour, such as 100ms or 2s",
                    "the default: 100ms"));
  }
  if (const auto value = setting_value(getenv, "UCUDNN_LOG_LEVEL", nullptr, used)) {
    if (!parse_log_level(*value, settings.log_level))
      warn(rejected(used, *value, "is not error, warning, info or debug (or 0 to 3)",
                    "the default: warning"));
  }
  if (const auto value = setting_value(getenv, "UCUDNN_BENCHMARK_REPEATS", nullptr, used)) {
    if (const auto repeats = count_within(*value, 1, 1000))
      settings.benchmark_repeats = static_cast<int>(*repeats);
    else
      warn(rejected(used, *value, "is not a count from 1 to 1000", "the default: 3"));
  }
  if (const auto value = setting_value(getenv, "UCUDNN_BENCHMARK_LIMIT", nullptr, used)) {
    if (const auto limit = count_within(*value, 0, 100000))
      settings.benchmark_limit = static_cast<std::size_t>(*limit);
    else
      warn(rejected(used, *value, "is not a count from 0 (every configuration) to 100000",
                    "the default: 10"));
  }
  if (const auto value = setting_value(getenv, "UCUDNN_BENCHMARK_IN", nullptr, used)) {
    if (equals_ignoring_case(*value, "find"))
      settings.benchmark_in_find_only = true;
    else if (!equals_ignoring_case(*value, "get"))
      warn(rejected(used, *value, "is not get or find", "the default: get"));
  }
  if (const auto value = setting_value(getenv, "UCUDNN_HYBRID", nullptr, used)) {
    const auto on = switch_value(*value);
    if (equals_ignoring_case(*value, "auto")) {
      settings.hybrid = Hybrid::kAuto;
    } else if (equals_ignoring_case(*value, "on") || (on && !*on)) {
      settings.hybrid = *on ? Hybrid::kOn : Hybrid::kOff;
    } else if (on) {
      // "Enable" is what 1/true/yes mean, and "on" is the forced split for tests, each
      // kernel several times slower: the enabling mode is auto.
      settings.hybrid = Hybrid::kAuto;
      warn(used + "='" + *value +
           "' is taken as auto (a kernel's batch split with the CPU where the planner predicts "
           "a gain); 'on' gives the CPU a sample of every kernel, for tests");
    } else
      warn(rejected(used, *value, "is not off, auto or on", "the default: off"));
  }
  if (const auto value = setting_value(getenv, "UCUDNN_EXCLUDE_ALGORITHMS", nullptr, used)) {
    std::vector<std::string> unreadable;
    settings.excluded = AlgorithmExclusion::parse_leniently(*value, unreadable);
    for (const auto& entry : unreadable)
      warn(used + ": '" + entry +
           "' is not backend:ALGORITHM (e.g. cudnn:eng34*, or cudnn:FFT with "
           "UCUDNN_CANDIDATES=algorithms); ignored");
    // A mistyped backend would protect nothing, silently: the GPU's and the host plugin's.
    for (std::size_t i = 0; i < settings.excluded.size(); ++i) {
      const bool gpu = settings.excluded.entry_names_backend(i, "cudnn");
      const bool cpu = settings.excluded.entry_names_backend(i, "cpu");
      if (gpu || cpu)
        settings.excludes_something = true;
      else
        warn(used + ": '" + settings.excluded.entry(i) +
             "' names no backend of ucudnn (cudnn, cpu): it excludes nothing");
      // The shim runs the CPU's algorithms only in a split with the GPU.
      if (cpu && !gpu && settings.hybrid == Hybrid::kOff)
        warn(used + ": '" + settings.excluded.entry(i) +
             "' excludes CPU algorithms, which run only with UCUDNN_HYBRID=auto or on: with the "
             "hybrid off it excludes nothing");
    }
  }
  if (const auto value = setting_value(getenv, "UCUDNN_GRAPH_PLANS", nullptr, used)) {
    if (equals_ignoring_case(*value, "ucudnn"))
      settings.compare_application_plans = false;
    else if (!equals_ignoring_case(*value, "compare"))
      warn(rejected(used, *value, "is not compare or ucudnn", "the default: compare"));
  }
  if (const auto value = setting_value(getenv, "UCUDNN_CANDIDATES", nullptr, used)) {
    if (equals_ignoring_case(*value, "algorithms"))
      settings.engine_candidates = false;
    else if (!equals_ignoring_case(*value, "engines"))
      warn(rejected(used, *value, "is not engines or algorithms", "the default: engines"));
  }
  if (const auto value = setting_value(getenv, "UCUDNN_KNOB_VARIANTS", nullptr, used)) {
    if (const auto on = switch_value(*value))
      settings.knob_variants = *on;
    else
      warn(rejected(used, *value, kSwitchValues, "the default: off"));
  }
  if (const auto note = ignored_alias_note(getenv, "UCUDNN_DEVICES", "UCUDNN_BENCHMARK_DEVICES"))
    warn(*note);
  if (const auto value =
          setting_value(getenv, "UCUDNN_DEVICES", "UCUDNN_BENCHMARK_DEVICES", used)) {
    if (auto devices = parse_device_list(*value))
      settings.devices = *devices;
    else
      warn(rejected(used, *value, devices.error(), "the default: the current GPU"));
  }
  return settings;
}

const Settings& process_settings() {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  static const Settings& settings = *new Settings([] {
    std::vector<std::string> problems;
    Settings read = read_settings([](const char* name) { return std::getenv(name); },
                                  [&](const std::string& message) { problems.push_back(message); });
    // The level first, so that it governs the warnings about the other variables.
    set_log_level(read.log_level);
    for (const auto& message : problems) warn_once(message, message);
    for (const auto& message : misspelt_settings(environ)) warn_once(message, message);
    return read;
  }());
  return settings;
}

}  // namespace ucudnn::shim
