// The environment as a user writes it: every variable, the aliases of the original µ-cuDNN,
// and bad values that must warn (naming the variable, the value and the default) and never
// stop the application.
#include "shim/settings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "user_input/setting_names.h"

namespace ucudnn::shim {
namespace {

struct Read {
  Settings settings;
  std::vector<std::string> warnings;
};

Read read(const std::map<std::string, std::string>& environment) {
  Read result;
  result.settings = read_settings(
      [&](const char* name) -> const char* {
        auto found = environment.find(name);
        return found == environment.end() ? nullptr : found->second.c_str();
      },
      [&](const std::string& message) { result.warnings.push_back(message); });
  return result;
}

// The one warning reading `environment` gives ("" where it gives another number of them).
std::string only_warning(const std::map<std::string, std::string>& environment) {
  const auto r = read(environment);
  EXPECT_EQ(r.warnings.size(), 1u);
  return r.warnings.size() == 1 ? r.warnings[0] : "";
}

TEST(Settings, DefaultsWhenNothingIsSet) {
  const auto r = read({});
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_FALSE(r.settings.disabled);
  EXPECT_EQ(r.settings.policy, BatchSizePolicy::kPowerOfTwo);
  EXPECT_FALSE(r.settings.workspace_limit);
  EXPECT_FALSE(r.settings.total_workspace);
  EXPECT_EQ(r.settings.benchmark_repeats, 3);
  EXPECT_EQ(r.settings.log_level, LogLevel::kWarning);
  EXPECT_FALSE(r.settings.devices);
  EXPECT_EQ(r.settings.database_lock_timeout, std::chrono::milliseconds(100));
  EXPECT_EQ(r.settings.hybrid, Hybrid::kOff);
  EXPECT_TRUE(r.settings.compare_application_plans);
  EXPECT_FALSE(r.settings.knob_variants);
}

TEST(Settings, ReadsEveryVariable) {
  const auto r = read({{"UCUDNN_DISABLE", "yes"},
                       {"UCUDNN_BATCH_SIZE_POLICY", "ALL"},
                       {"UCUDNN_WORKSPACE_LIMIT", "8MiB"},
                       {"UCUDNN_TOTAL_WORKSPACE_SIZE", "1GiB"},
                       {"UCUDNN_DATABASE", "/tmp/u.db"},
                       {"UCUDNN_SYSTEM_DATABASE", "/shared/u.db"},
                       {"UCUDNN_LOG_LEVEL", "debug"},
                       {"UCUDNN_BENCHMARK_REPEATS", "7"},
                       {"UCUDNN_BENCHMARK_LIMIT", "4"},
                       {"UCUDNN_DEVICES", "0,2"},
                       {"UCUDNN_DATABASE_LOCK_TIMEOUT", "2s"},
                       {"UCUDNN_HYBRID", "Auto"},
                       {"UCUDNN_GRAPH_PLANS", "UCUDNN"},
                       {"UCUDNN_KNOB_VARIANTS", "On"}});
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_TRUE(r.settings.disabled);
  EXPECT_EQ(r.settings.policy, BatchSizePolicy::kAll);
  EXPECT_EQ(r.settings.workspace_limit, 8u << 20);
  EXPECT_EQ(r.settings.total_workspace, 1ull << 30);
  EXPECT_EQ(r.settings.log_level, LogLevel::kDebug);
  EXPECT_EQ(r.settings.benchmark_repeats, 7);
  EXPECT_EQ(r.settings.benchmark_limit, 4u);
  EXPECT_EQ(read({}).settings.benchmark_limit, 10u) << "PyTorch's benchmark_limit";
  EXPECT_EQ(read({{"UCUDNN_BENCHMARK_LIMIT", "0"}}).settings.benchmark_limit, 0u) << "all";
  EXPECT_EQ(r.settings.devices, (std::vector<int>{0, 2}));
  EXPECT_EQ(r.settings.database_lock_timeout, std::chrono::seconds(2));
  EXPECT_EQ(r.settings.hybrid, Hybrid::kAuto);
  EXPECT_FALSE(r.settings.compare_application_plans);
  EXPECT_TRUE(r.settings.knob_variants);
  EXPECT_TRUE(read({{"UCUDNN_GRAPH_PLANS", "compare"}}).settings.compare_application_plans);
  EXPECT_FALSE(read({{"UCUDNN_KNOB_VARIANTS", "0"}}).settings.knob_variants);
  EXPECT_EQ(read({{"UCUDNN_HYBRID", "on"}}).settings.hybrid, Hybrid::kOn);
  EXPECT_EQ(read({{"UCUDNN_HYBRID", "off"}}).settings.hybrid, Hybrid::kOff);
  EXPECT_EQ(read({{"UCUDNN_HYBRID", "False"}}).settings.hybrid, Hybrid::kOff);
  // 1/true/yes mean "enable": auto, said so. They meant the forced split of tests and
  // demonstrations, each kernel 15-20x slower on the doubles, without a word.
  for (const char* enable : {"1", "true", "YES"}) {
    const auto r = read({{"UCUDNN_HYBRID", enable}});
    EXPECT_EQ(r.settings.hybrid, Hybrid::kAuto) << enable;
    ASSERT_EQ(r.warnings.size(), 1u) << enable;
    EXPECT_NE(r.warnings[0].find(std::string("UCUDNN_HYBRID='") + enable + "' is taken as auto"),
              std::string::npos)
        << r.warnings[0];
  }
}

TEST(Settings, LockTimeoutTakesMillisecondsOrSeconds) {
  EXPECT_EQ(read({{"UCUDNN_DATABASE_LOCK_TIMEOUT", "250ms"}}).settings.database_lock_timeout,
            std::chrono::milliseconds(250));
  EXPECT_EQ(read({{"UCUDNN_DATABASE_LOCK_TIMEOUT", "0"}}).settings.database_lock_timeout,
            std::chrono::milliseconds(0));
  EXPECT_EQ(read({{"UCUDNN_DATABASE_LOCK_TIMEOUT", "1500"}}).settings.database_lock_timeout,
            std::chrono::milliseconds(1500));
  // "60" reads as 60 ms, as written, with a note: seconds were likely meant.
  const auto bare = read({{"UCUDNN_DATABASE_LOCK_TIMEOUT", "60"}});
  EXPECT_EQ(bare.settings.database_lock_timeout, std::chrono::milliseconds(60));
  ASSERT_EQ(bare.warnings.size(), 1u);
  EXPECT_EQ(bare.warnings[0],
            "UCUDNN_DATABASE_LOCK_TIMEOUT='60' is 60 ms (a number without a unit is "
            "milliseconds); for seconds write 60s");
}

TEST(Settings, AcceptsTheOriginalNamesAsAliases) {
  const auto r =
      read({{"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "123456"}, {"UCUDNN_BENCHMARK_DEVICES", "3"}});
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.settings.workspace_limit, 123456u);
  EXPECT_EQ(r.settings.devices, (std::vector<int>{3}));
  // The new name wins over the alias, and says so: the alias's value would otherwise do
  // nothing without a word.
  const auto both =
      read({{"UCUDNN_WORKSPACE_LIMIT", "1KiB"}, {"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "2KiB"}});
  EXPECT_EQ(both.settings.workspace_limit, 1024u);
  ASSERT_EQ(both.warnings.size(), 1u);
  EXPECT_EQ(both.warnings[0],
            "UCUDNN_DEFAULT_WORKSPACE_LIMIT='2KiB' is ignored: UCUDNN_WORKSPACE_LIMIT='1KiB' is "
            "set too, and the new name wins");
  EXPECT_TRUE(read({{"UCUDNN_DEVICES", "0"}, {"UCUDNN_BENCHMARK_DEVICES", " 0"}}).warnings.empty())
      << "the same value: nothing to say";
}

// A workspace of "512" is 512 bytes, and every fast algorithm then loses its place without a
// word (the doubles' example network ran 3.4x slower at UCUDNN_TOTAL_WORKSPACE_SIZE=1): it is
// taken as written, and said to be bytes.
TEST(Settings, ASmallWorkspaceSizeWithoutAUnitIsSaidToBeBytes) {
  for (const char* name : {"UCUDNN_WORKSPACE_LIMIT", "UCUDNN_DEFAULT_WORKSPACE_LIMIT",
                           "UCUDNN_TOTAL_WORKSPACE_SIZE"}) {
    const auto r = read({{name, "512"}});
    ASSERT_EQ(r.warnings.size(), 1u) << name;
    EXPECT_EQ(r.warnings[0], std::string(name) +
                                 "='512' is 512 bytes (a number without a unit is bytes), too "
                                 "little for most fast convolution algorithms; for mebibytes "
                                 "write 512MiB");
    const bool total = std::string(name) == "UCUDNN_TOTAL_WORKSPACE_SIZE";
    EXPECT_EQ(total ? r.settings.total_workspace.value_or(0) : r.settings.workspace_limit, 512u)
        << name;
  }
  for (const char* quiet : {"0", "512KiB", "204800", "2097152"})
    EXPECT_TRUE(read({{"UCUDNN_TOTAL_WORKSPACE_SIZE", quiet}}).warnings.empty()) << quiet;
}

// UCUDNN_WORKSPACE_LIMIT=0 is taken as written, no workspace, and said, since 0 often means no
// limit; a total of 0 is off, as the README says, and quiet.
TEST(Settings, AZeroWorkspaceLimitIsSaidToBeNoWorkspace) {
  for (const char* name : {"UCUDNN_WORKSPACE_LIMIT", "UCUDNN_DEFAULT_WORKSPACE_LIMIT"}) {
    const auto r = read({{name, "0"}});
    EXPECT_EQ(r.settings.workspace_limit, 0u) << name;
    ASSERT_EQ(r.warnings.size(), 1u) << name;
    EXPECT_EQ(r.warnings[0], std::string(name) +
                                 "='0' gives each kernel no workspace at all (0 is not "
                                 "unlimited): only algorithms that need none are candidates");
  }
  EXPECT_TRUE(read({{"UCUDNN_TOTAL_WORKSPACE_SIZE", "0MiB"}}).warnings.empty());
}

TEST(Settings, BadValuesWarnNamingVariableValueAndDefault) {
  struct Case {
    const char* variable;
    const char* value;
    const char* default_used;
  };
  const Case cases[] = {
      {"UCUDNN_BATCH_SIZE_POLICY", "half", "powerOfTwo"},
      {"UCUDNN_WORKSPACE_LIMIT", "12apples", "64 MiB"},
      {"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "-5", "64 MiB"},
      {"UCUDNN_TOTAL_WORKSPACE_SIZE", "lots", "(WR)"},
      {"UCUDNN_LOG_LEVEL", "loud", "warning"},
      {"UCUDNN_BENCHMARK_REPEATS", "0", "3"},
      {"UCUDNN_BENCHMARK_LIMIT", "-1", "10"},
      {"UCUDNN_BENCHMARK_LIMIT", "ten", "10"},
      {"UCUDNN_DEVICES", "0,x", "all"},
      {"UCUDNN_DATABASE_LOCK_TIMEOUT", "soon", "100ms"},
      {"UCUDNN_DATABASE_LOCK_TIMEOUT", "2h", "100ms"},
      {"UCUDNN_HYBRID", "sometimes", "off"},
      {"UCUDNN_GRAPH_PLANS", "mine", "compare"},
      {"UCUDNN_KNOB_VARIANTS", "some", "off"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.variable);
    const auto r = read({{c.variable, c.value}});
    ASSERT_EQ(r.warnings.size(), 1u);
    const std::string& message = r.warnings.front();
    EXPECT_NE(message.find(c.variable), std::string::npos) << message;
    EXPECT_NE(message.find(c.value), std::string::npos) << message;
    EXPECT_NE(message.find(c.default_used), std::string::npos) << message;
    // The bad value changes nothing.
    const auto defaults = read({}).settings;
    EXPECT_EQ(r.settings.disabled, defaults.disabled);
    EXPECT_EQ(r.settings.policy, defaults.policy);
    EXPECT_EQ(r.settings.workspace_limit, defaults.workspace_limit);
    EXPECT_EQ(r.settings.total_workspace, defaults.total_workspace);
    EXPECT_EQ(r.settings.benchmark_repeats, defaults.benchmark_repeats);
    EXPECT_EQ(r.settings.database_lock_timeout, defaults.database_lock_timeout);
    EXPECT_EQ(r.settings.hybrid, defaults.hybrid);
  }
}

// UCUDNN_DISABLE is set to turn ucudnn off: a value it cannot read does so, saying it (it used to
// leave ucudnn on, planning an application whose user had asked it not to).
TEST(Settings, AnUnreadableDisableTurnsUcudnnOff) {
  for (const char* value : {"2", "maybe"}) {
    const auto r = read({{"UCUDNN_DISABLE", value}});
    EXPECT_TRUE(r.settings.disabled) << value;
    ASSERT_EQ(r.warnings.size(), 1u) << value;
    EXPECT_EQ(r.warnings[0], "UCUDNN_DISABLE='" + std::string(value) +
                                 "' is not 1/true/yes/on or 0/false/no/off; using 1 (ucudnn "
                                 "off: the variable is set to turn it off)");
  }
  EXPECT_FALSE(read({{"UCUDNN_DISABLE", "0"}}).settings.disabled);
}

// A backend that does not exist protects nothing: said, rather than left to be found out when
// the algorithm meant runs.
TEST(Settings, AnExclusionOfABackendThatDoesNotExistIsSaid) {
  const auto r = read({{"UCUDNN_EXCLUDE_ALGORITHMS", "gpu:FFT*,cudnn:WINOGRAD,CPU:direct"},
                       {"UCUDNN_HYBRID", "auto"}});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "UCUDNN_EXCLUDE_ALGORITHMS: 'gpu:FFT*' names no backend of ucudnn (cudnn, cpu): it "
            "excludes nothing");
  EXPECT_TRUE(r.settings.excluded.excludes("cudnn", "WINOGRAD"));
  EXPECT_TRUE(r.settings.excluded.excludes("cpu", "DIRECT"));
  EXPECT_TRUE(r.settings.excludes_something);
  // Nothing but the mistyped backend: plans are stored as without an exclusion.
  EXPECT_FALSE(read({{"UCUDNN_EXCLUDE_ALGORITHMS", "gpu:FFT*"}}).settings.excludes_something);
}

// An entry without a backend is named with examples of what the candidates are called: engine
// configurations by default, the legacy algorithms where asked for.
TEST(Settings, AnEntryWithoutABackendIsSaidWithNamesOfBothKinds) {
  EXPECT_EQ(only_warning({{"UCUDNN_EXCLUDE_ALGORITHMS", "eng34"}}),
            "UCUDNN_EXCLUDE_ALGORITHMS: 'eng34' is not backend:ALGORITHM (e.g. cudnn:eng34*, or "
            "cudnn:FFT with UCUDNN_CANDIDATES=algorithms); ignored");
  EXPECT_FALSE(read({{"UCUDNN_EXCLUDE_ALGORITHMS", "eng34"}}).settings.excludes_something);
  // The setting the hint names is one the shim takes.
  const std::string warning = only_warning({{"UCUDNN_EXCLUDE_ALGORITHMS", "eng34"}});
  const std::string key = "UCUDNN_CANDIDATES=";
  const auto at = warning.find(key);
  ASSERT_NE(at, std::string::npos) << warning;
  const auto value_at = at + key.size();
  const std::string value = warning.substr(value_at, warning.find(')', value_at) - value_at);
  const auto hinted = read({{"UCUDNN_CANDIDATES", value}});
  EXPECT_TRUE(hinted.warnings.empty());
  EXPECT_FALSE(hinted.settings.engine_candidates);
}

// The CPU's algorithms run only in a CPU/GPU split: excluding them with the hybrid off (the
// default) protects nothing, and is said. An entry that names both backends is not.
TEST(Settings, AnExclusionOfTheCpuWithTheHybridOffIsSaid) {
  EXPECT_EQ(only_warning({{"UCUDNN_EXCLUDE_ALGORITHMS", "cpu:DIRECT,*:FFT*"}}),
            "UCUDNN_EXCLUDE_ALGORITHMS: 'cpu:DIRECT' excludes CPU algorithms, which run only with "
            "UCUDNN_HYBRID=auto or on: with the hybrid off it excludes nothing");
  for (const char* hybrid : {"auto", "on"})
    EXPECT_TRUE(read({{"UCUDNN_EXCLUDE_ALGORITHMS", "cpu:DIRECT"}, {"UCUDNN_HYBRID", hybrid}})
                    .warnings.empty())
        << hybrid;
}

TEST(Settings, EmptyValuesCountAsUnset) {
  const auto r = read({{"UCUDNN_WORKSPACE_LIMIT", ""}, {"UCUDNN_DISABLE", ""}});
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_FALSE(r.settings.workspace_limit);
  EXPECT_FALSE(r.settings.disabled);
}

// Spaces around a value (an environment file's "on ") are no part of it, as byte sizes always
// allowed; a value of spaces alone is unset, as an empty one. " all" used to be refused.
TEST(Settings, SpacesAroundAValueAreNoPartOfIt) {
  const auto r = read({{"UCUDNN_BATCH_SIZE_POLICY", " all"},
                       {"UCUDNN_HYBRID", "on "},
                       {"UCUDNN_LOG_LEVEL", "\tinfo"},
                       {"UCUDNN_BENCHMARK_REPEATS", " 5 "},
                       {"UCUDNN_DISABLE", "   "},
                       {"UCUDNN_KNOB_VARIANTS", "on\r"}});
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  EXPECT_EQ(r.settings.policy, BatchSizePolicy::kAll);
  EXPECT_EQ(r.settings.hybrid, Hybrid::kOn);
  EXPECT_EQ(r.settings.log_level, LogLevel::kInfo);
  EXPECT_EQ(r.settings.benchmark_repeats, 5);
  EXPECT_FALSE(r.settings.disabled);
  EXPECT_TRUE(r.settings.knob_variants) << "a line end of an environment file written elsewhere";
  const auto bad = read({{"UCUDNN_HYBRID", " maybe "}});
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0],
            "UCUDNN_HYBRID='maybe' is not off, auto or on; using the default: off");
}

// A variable the shim reads but the list of names lacks would be called misspelt when it is
// one mistake from another (UCUDNN_DEVICES beside UCUDNN_DEVICE), and never be suggested.
TEST(Settings, EveryVariableReadIsANamedSetting) {
  std::vector<std::string> asked;
  read_settings(
      [&](const char* name) -> const char* {
        asked.push_back(name);
        return nullptr;
      },
      [](const std::string&) {});
  ASSERT_GE(asked.size(), 16u);
  const auto& names = setting_names();
  for (const auto& name : asked)
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

}  // namespace
}  // namespace ucudnn::shim
