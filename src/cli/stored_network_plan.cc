#include "stored_network_plan.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "core/reduction_precision.h"
#include "core/text.h"
#include "cpu_benchmarker.h"
#include "database_access.h"
#include "exclusion_review.h"
#include "exit_status.h"
#include "fingerprint_search.h"
#include "plan_report.h"
#include "store_reader.h"
#include "thread_pool.h"
#ifdef UCUDNN_CLI_HAVE_CUDNN
#include "cudnn/algorithms.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/gpu_fingerprint.h"
#endif

namespace ucudnn::cli {

namespace {

// The algorithms of a kernel on the backend, known without a device, less the excluded. A
// GPU's candidates (cuDNN's engine configurations) depend on the GPU and its cuDNN: they are
// the ones the database has results of for the device, at any micro-batch; the legacy
// algorithms where it has none (the planning then names what is missing).
AlgorithmLister algorithm_lister(const std::string& backend, cpu::CpuBenchmarker& cpu,
                                 ExclusionAccount& excluded, BenchmarkStore& store,
                                 const std::string& fingerprint) {
  return [&cpu, &excluded, &store, backend, fingerprint](const KernelKey& kernel) {
    std::vector<std::string> names;
    if (backend == "cudnn") {
      std::set<std::string> micro_kernels;
      for (auto size : micro_batch_sizes(BatchSizePolicy::kAll, kernel.problem.batch()))
        micro_kernels.insert(kernel.with_batch(size).to_string());
      names = store.measured_algorithms(fingerprint, backend, micro_kernels);
#ifdef UCUDNN_CLI_HAVE_CUDNN
      if (names.empty()) names = cudnn::algorithm_names(kernel.operation);
#else
      // Nothing is known of a kernel the database has no results of: not "no algorithm".
      if (names.empty()) return names;
#endif
    } else {
      names = cpu.algorithms(kernel);
    }
    excluded.filter(backend, kernel, names);
    return names;
  };
}

// This machine's GPU, when one is usable.
std::optional<std::string> local_gpu_fingerprint() {
#ifdef UCUDNN_CLI_HAVE_CUDNN
  const auto& api = cudnn::cudnn_api();
  const auto& runtime = cudnn::cuda_runtime();
  int count = 0;
  if (!api.complete() || !runtime.complete()) return std::nullopt;
  if (runtime.cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    runtime.cudaGetLastError();
    return std::nullopt;
  }
  const auto fingerprint = cudnn::current_gpu_fingerprint(api, runtime);
  if (!fingerprint) return std::nullopt;
  return fingerprint->to_string();
#else
  return std::nullopt;
#endif
}

std::set<std::string> micro_kernel_texts(const std::vector<NetworkKernel>& kernels,
                                         BatchSizePolicy policy) {
  std::set<std::string> texts;
  for (const auto& k : kernels)
    for (auto size : planned_micro_batch_sizes(k.key, policy))
      texts.insert(k.key.with_batch(size).to_string());
  return texts;
}

// The bench that measures what this plan needs, to paste: every option that changes what is
// measured or stored.
std::string bench_command_line(const PlanningOptions& o, const PlanningRequest& r) {
  std::vector<std::string> words = {"ucudnn",
                                    "bench",
                                    "--network",
                                    o.network,
                                    "--batch",
                                    std::to_string(o.batch),
                                    "--backend",
                                    o.backend,
                                    "--policy",
                                    r.policy_text,
                                    "--workspace-limit",
                                    r.workspace_limit_text};
  if (!r.total_workspace_text.empty())
    words.insert(words.end(), {"--total-workspace", r.total_workspace_text});
  if (!o.exclude_algorithms.empty())
    words.insert(words.end(), {"--exclude-algorithms", o.exclude_algorithms});
  if (!o.database.empty()) words.insert(words.end(), {"--database", o.database});
  std::string line;
  for (const auto& word : words) line += (line.empty() ? "" : " ") + shell_word(word);
  return line;
}

// Which kernels lack which measurements, for the error.
std::string missing_message(const std::vector<NetworkKernel>& kernels,
                            const std::set<StoreReader::Missing>& missing) {
  std::map<std::string, std::size_t> per_kernel;
  for (const auto& m : missing) ++per_kernel[m.kernel];
  std::string labels;
  std::size_t named = 0;
  for (const auto& k : kernels) {
    if (!per_kernel.count(k.key.to_string())) continue;
    if (named++ < 12) labels += (labels.empty() ? "" : ", ") + k.label();
  }
  if (named > 12) labels += ", and " + std::to_string(named - 12) + " more";
  // Planning looks up what it needs (pruning skips pairs that cannot win), so this is fewer
  // than the pairs a bench measures: said so, that the two counts do not read as a contradiction.
  return "planning looked up " + counted(missing.size(), "measurement") +
         " the database does not have, of " + counted(named, "kernel") + ": " + labels;
}

}  // namespace

std::variant<StoredNetworkPlan, PlanUnavailable> read_network_plan(const PlanningOptions& options,
                                                                   const PlanSource& source,
                                                                   const std::string& command) {
  const std::string& fingerprint_option = source.fingerprint;
  auto resolved = resolve(options);
  if (!resolved) return PlanUnavailable{kUsageError, resolved.error()};
  StoredNetworkPlan stored;
  stored.request = std::move(resolved).value();
  print_network_notes(stored.request.network, command);
  const PlanningRequest& request = stored.request;
  stored.kernels = network_kernels(request.network);
  auto opened = open_store_for_reading(options.database);
  if (!opened) return PlanUnavailable{kFailure, opened.error()};
  const OpenedStore database = std::move(opened).value();
  stored.database = database.description;
  const auto texts = micro_kernel_texts(stored.kernels, request.policy);

  cpu::ThreadPool pool;
  cpu::CpuBenchmarker cpu(pool);
  // This machine's device for the backend, if it has one: asked only where needed (it starts
  // CUDA for cudnn).
  std::optional<std::string> local;
  auto local_fingerprint = [&]() -> const std::string& {
    if (!local)
      local = request.backend == "cpu" ? cpu.fingerprint().to_string()
                                       : local_gpu_fingerprint().value_or("");
    return *local;
  };
  std::string fingerprint = fingerprint_option.empty() ? local_fingerprint() : fingerprint_option;
  if (fingerprint.empty()) {
    // No GPU here: plan for the one device the database has results of.
    const auto found = fingerprints_with_results(database.files, texts, request.backend);
    if (found.empty())
      return PlanUnavailable{kFailure,
                             "no usable GPU here, and the database (" + database.description +
                                 ") has no cudnn results for these kernels: run `" +
                                 bench_command_line(options, request) + "` on a GPU machine first"};
    if (found.size() > 1) {
      std::string list;
      for (const auto& [text, count] : found)
        list += "\n  " + text + " (" + std::to_string(count) + " results)";
      return PlanUnavailable{kUsageError,
                             "no usable GPU here, and the database has results of these kernels "
                             "for " +
                                 std::to_string(found.size()) +
                                 " devices; choose one with --fingerprint:" + list};
    }
    fingerprint = found.begin()->first;
    std::fprintf(stderr, "ucudnn %s: no usable GPU here: planning for %s\n", command.c_str(),
                 fingerprint.c_str());
  }

  ExclusionAccount excluded(request.excluded);
  StoreReader reader(request.backend, fingerprint,
                     algorithm_lister(request.backend, cpu, excluded, *database.store, fingerprint),
                     {database.store.get()});
  stored.plan = plan_network(reader, stored.kernels, request);
  ExclusionReview review = review_exclusion(excluded, request.excluded_by, request.backend,
                                            stored.kernels, available_backends());
  for (const auto& warning : review.warnings)
    std::fprintf(stderr, "ucudnn %s: warning: %s\n", command.c_str(), warning.c_str());
  // A table of kernels where "nothing fits" would blame the limit for what the exclusion did.
  if (!review.error.empty()) return PlanUnavailable{kFailure, review.error};
  if (const auto missing = reader.missing(); !missing.empty()) {
    // Kernels with no measurement at all cannot be planned among what there is.
    const auto answered = reader.answered();
    std::set<StoreReader::Missing> unanswered;
    for (const auto& m : missing)
      if (!answered.count(m.kernel)) unanswered.insert(m);
    if (source.measured_only && unanswered.empty()) {
      // A kernel without a plan here may have one among the measurements left out.
      const std::size_t without_plan = plan_totals(stored.kernels, stored.plan).without_plan;
      std::fprintf(stderr,
                   "ucudnn %s: planned among the measurements the database has, leaving out %s "
                   "it lacks; at a limit or policy other than the measuring job's, a plan may be "
                   "slower than one from every measurement%s\n",
                   command.c_str(), counted(missing.size(), "measurement").c_str(),
                   without_plan == 0 ? ""
                                     : ("; the " + counted(without_plan, "kernel") +
                                        " without a plan may have one among those: `ucudnn "
                                        "bench` measures them")
                                           .c_str());
      stored.fingerprint = std::move(fingerprint);
      return stored;
    }
    const auto& shown = source.measured_only ? unanswered : missing;
    // Where every kernel has some measurements (a job's database), planning among them works.
    const std::string among_them =
        !source.measured_only && unanswered.empty()
            ? "; or plan among the measurements it has with --measured-only (a job's database "
              "holds only what could win at its limit)"
            : "";
    auto others = fingerprints_with_results(database.files, texts, request.backend);
    const bool measured = others.erase(fingerprint) > 0;
    std::string devices;
    for (const auto& [text, count] : others) devices += "\n  " + text;
    // `bench` measures this machine: its command is advice for this machine's device only.
    std::string message;
    if (fingerprint_option.empty() || fingerprint_option == local_fingerprint()) {
      message = missing_message(stored.kernels, shown) + "; run `" +
                bench_command_line(options, request) + "` first";
      if (!others.empty())
        message +=
            " (the database has results of these kernels for other devices; choose one "
            "with --fingerprint:" +
            devices + ")";
      message += among_them;
    } else if (!measured) {
      message = "the database has no " + request.backend + " results of these kernels for " +
                "--fingerprint '" + fingerprint_option + "'" +
                (others.empty() ? " (`ucudnn db info` lists the devices it has results of)"
                                : "; it has results for:" + devices);
    } else {
      message = missing_message(stored.kernels, shown) + " for --fingerprint '" +
                fingerprint_option + "': `ucudnn bench` on that device measures them" + among_them;
    }
    return PlanUnavailable{kFailure, message};
  }
  stored.fingerprint = std::move(fingerprint);
  return stored;
}

}  // namespace ucudnn::cli
