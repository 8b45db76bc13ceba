#pragma once
// The shim's settings from the environment, read once per process. A bad value never stops
// the application: the message names the variable, the value and the default used.
//
//   UCUDNN_DISABLE                pure pass-through (1/true/yes/on)
//   UCUDNN_BATCH_SIZE_POLICY      all | powerOfTwo (default) | undivided
//   UCUDNN_WORKSPACE_LIMIT        per-kernel limit (WR), e.g. 64MiB; alias
//                                 UCUDNN_DEFAULT_WORKSPACE_LIMIT (the original µ-cuDNN's)
//   UCUDNN_TOTAL_WORKSPACE_SIZE   one workspace for all kernels of a handle: turns on WD
//   UCUDNN_DATABASE               the user database (benchmarks and plans)
//   UCUDNN_SYSTEM_DATABASE        a read-only database under it (e.g. on a shared file system)
//   UCUDNN_DATABASE_LOCK_TIMEOUT  how long a call waits for another process's lock on the
//                                 database: "100ms" (default), "2s", or milliseconds; then
//                                 it proceeds uncached and saves its results later
//   UCUDNN_LOG_LEVEL              error | warning (default) | info | debug
//   UCUDNN_BENCHMARK_REPEATS      timed repeats per measurement, median taken (default 3)
//   UCUDNN_BENCHMARK_IN           get (default): kernels are benchmarked where µ-cuDNN did,
//                                 at the first Get*_v7, Find*, Get*WorkspaceSize or
//                                 convolution that needs a plan; find: only in Find*/Find*Ex
//                                 (other calls plan from the database or pass through)
//   UCUDNN_HYBRID                 off (default) | auto | on: CPU/GPU hybrid (WR and WD), the
//                                 batch's last samples computed by the CPU backend while the
//                                 GPU computes the rest; auto where the planner predicts a
//                                 gain, on always (at least one sample: tests, demonstrations)
//   UCUDNN_EXCLUDE_ALGORITHMS     algorithms never benchmarked, planned or run from a stored
//                                 plan: backend:NAME,... with shell wildcards, e.g.
//                                 "cpu:WINOGRAD_F4X4_3X3,cudnn:FFT*" (core/algorithm_exclusion.h)
//   UCUDNN_GRAPH_PLANS            compare (default): a graph API execution plan of the
//                                 application that fits the limit is timed beside ucudnn's
//                                 plan, and ucudnn runs its own only where it is clearly
//                                 faster; ucudnn: ucudnn runs its plan wherever it has one
//   UCUDNN_CANDIDATES             engines (default): the GPU's candidates are the engine
//                                 configurations cuDNN's heuristics offer (modes A, B and the
//                                 fallback list), run as execution plans; algorithms: the
//                                 legacy algorithms, run as legacy calls
//   UCUDNN_BENCHMARK_LIMIT        N: of the engine configurations offered for a kernel whose
//                                 workspace at the full batch fits the limit, the heuristics'
//                                 first N are measured (10, as PyTorch's benchmark_limit; the
//                                 application's own and those over the limit always); 0: all
//   UCUDNN_KNOB_VARIANTS          on: where a configuration the heuristics offer needs more
//                                 workspace than the limit at the full batch, the same engine
//                                 with smaller split-K knob values is a candidate too
//                                 (core/knob_variants.h); off (default)
//   UCUDNN_DEVICES                GPUs for offline benchmarking (`ucudnn bench`): "all" or
//                                 "0,1,..."; alias UCUDNN_BENCHMARK_DEVICES (µ-cuDNN's)
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/algorithm_exclusion.h"
#include "core/batch_size_policy.h"
#include "shim/log.h"
#include "user_input/setting_value.h"

namespace ucudnn::shim {

inline constexpr std::uint64_t kDefaultWorkspaceLimit = 64ull << 20;

enum class Hybrid { kOff, kAuto, kOn };

struct Settings {
  bool disabled = false;
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  std::optional<std::uint64_t> workspace_limit;  // nullopt: the application's size, else 64 MiB
  std::optional<std::uint64_t> total_workspace;  // set: WD
  std::chrono::milliseconds database_lock_timeout{100};
  int benchmark_repeats = 3;
  std::size_t benchmark_limit = 10;  // UCUDNN_BENCHMARK_LIMIT; 0: every configuration
  bool benchmark_in_find_only = false;
  Hybrid hybrid = Hybrid::kOff;
  AlgorithmExclusion excluded;
  // Some entry of `excluded` names a backend of ucudnn (cudnn, cpu): plans made under it are
  // not stored (their key does not name the exclusion).
  bool excludes_something = false;
  bool compare_application_plans = true;    // UCUDNN_GRAPH_PLANS=compare
  bool engine_candidates = true;            // UCUDNN_CANDIDATES=engines
  bool knob_variants = false;               // UCUDNN_KNOB_VARIANTS=on
  std::optional<std::vector<int>> devices;  // as given (nullopt: "all", or unset); bench's only
  LogLevel log_level = LogLevel::kWarning;
};

// Reads every variable through `getenv` (tests pass their own); problems go to `warn`.
// Pure: applies nothing.
Settings read_settings(const Environment& getenv,
                       const std::function<void(const std::string&)>& warn);

// The process's settings, from the real environment, read on first use; also applies
// UCUDNN_LOG_LEVEL.
const Settings& process_settings();

}  // namespace ucudnn::shim
