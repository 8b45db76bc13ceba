#include "bench_setup.h"

#include <unistd.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cpu_worker.h"
#include "db/default_store.h"
#include "exit_status.h"
#ifdef UCUDNN_CLI_HAVE_CUDNN
#include "cudnn_workers.h"
#endif

namespace ucudnn::cli {

using nlohmann::json;

std::string to_json(const RankSetup& setup) {
  return json{
      {"status", setup.status},   {"error", setup.error}, {"fingerprint", setup.fingerprint},
      {"devices", setup.devices}, {"host", setup.host},   {"addresses", setup.addresses}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

RankSetup rank_setup_from_json(const std::string& text) {
  try {
    const json value = json::parse(text);
    return {value.at("status").get<int>(),
            value.at("error").get<std::string>(),
            value.at("fingerprint").get<std::string>(),
            value.at("devices").get<std::string>(),
            value.value("host", std::string()),
            value.value("addresses", std::string())};
  } catch (const json::exception& e) {
    return {kFailure, std::string("unreadable set-up message: ") + e.what(), "", "", "", ""};
  }
}

Setup set_up(const BenchOptions& options, const Cluster& cluster,
             const Expected<NetworkText>& network) {
  Setup setup;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) setup.summary.host = host;
  auto fail = [&](int status, std::string message) {
    setup.summary.status = status;
    setup.summary.error = std::move(message);
    setup.workers.clear();
    return std::move(setup);
  };
  auto request = resolve(options.planning, network);
  if (!request) return fail(kUsageError, request.error());
  setup.request = std::move(request).value();
  setup.request->knob_variants = options.knob_variants;
  if (options.knob_variants && setup.request->backend != "cudnn")
    return fail(kUsageError, "--knob-variants applies to --backend cudnn (cuDNN's engine knobs)");
  // The shim's divisions never run knob variants (core/plan_mode.h): one made among them here
  // would not be the division a job plans.
  if (options.knob_variants && setup.request->total_workspace)
    return fail(kUsageError,
                "--knob-variants applies to WR plans (--workspace-limit), not to a WD division "
                "(--total-workspace)");
  if (setup.request->backend == "cpu") {
    if (!options.devices.empty())
      return fail(kUsageError,
                  "--devices applies to --backend cudnn (the CPU backend uses every core)");
    auto worker = std::make_unique<CpuWorker>(options.repeats);
    // Open MPI's mpirun binds a rank to one core by default, a single one too (-np 1); a process
    // bound otherwise (taskset, a container's cpuset, a scheduler's allocation: srun -n1 -c8)
    // was bound on purpose, and is told what it costs.
    if (auto problem = cpu_binding_problem(worker->threads())) {
      if (cluster.size() > 1 || process_environment("OMPI_COMM_WORLD_SIZE"))
        return fail(kFailure, *problem +
                                  ": run mpirun with --bind-to none (and one rank per node, "
                                  "--map-by ppr:1:node)");
      std::fprintf(stderr,
                   "ucudnn bench: warning: %s; what it measures is stored as this machine's, "
                   "slower than a job on all its cores finds\n",
                   problem->c_str());
    }
    setup.workers.push_back(std::move(worker));
  } else {
#ifdef UCUDNN_CLI_HAVE_CUDNN
    auto choice = device_choice(options.devices, process_environment);
    if (!choice) return fail(kUsageError, choice.error());
    auto workers = open_gpu_workers(
        *choice, cluster, options.repeats,
        options.knob_variants ? std::optional(setup.request->workspace_limit) : std::nullopt);
    if (!workers) return fail(kFailure, workers.error());
    setup.workers = std::move(workers).value();
#else
    (void)cluster;
#endif
  }
  if (setup.workers.empty())
    return fail(kUsageError, "no device for --backend " + setup.request->backend);
  for (auto& worker : setup.workers) worker->exclude(setup.request->excluded);
  std::map<std::string, std::string> fingerprints;  // -> the devices that have it
  for (const auto& worker : setup.workers) {
    auto& devices = fingerprints[worker->benchmarker().fingerprint().to_string()];
    devices += (devices.empty() ? "" : ", ") + worker->description();
    setup.summary.devices += (setup.summary.devices.empty() ? "" : ", ") + worker->description();
    setup.summary.addresses += (setup.summary.addresses.empty() ? "" : ", ") + worker->address();
  }
  if (fingerprints.size() > 1) {
    std::string list;
    for (const auto& [fingerprint, devices] : fingerprints)
      list += "\n  " + devices + ": " + fingerprint;
    return fail(kFailure, "the devices differ (measurements are valid for one kind only):" + list);
  }
  setup.summary.fingerprint = fingerprints.begin()->first;
  return setup;
}

std::pair<int, std::string> verdict(const std::vector<RankSetup>& setups) {
  int status = 0;
  std::set<std::string> errors;
  std::string message;
  for (std::size_t r = 0; r < setups.size(); ++r) {
    if (setups[r].status == 0) continue;
    status = std::max(status, setups[r].status);
    errors.insert(setups[r].error);
  }
  if (status) {
    // Every rank parses the same options: one message, unless the ranks disagree.
    if (errors.size() == 1 || setups.size() == 1) return {status, *errors.begin()};
    for (std::size_t r = 0; r < setups.size(); ++r)
      if (setups[r].status) message += "\n  rank " + std::to_string(r) + ": " + setups[r].error;
    return {status, "ranks failed to set up:" + message};
  }
  std::set<std::string> fingerprints;
  for (const auto& setup : setups) fingerprints.insert(setup.fingerprint);
  if (fingerprints.size() > 1) {
    for (std::size_t r = 0; r < setups.size(); ++r)
      message += "\n  rank " + std::to_string(r) + " (" + setups[r].devices +
                 "): " + setups[r].fingerprint;
    return {kFailure,
            "the ranks' devices differ (measurements are valid for one kind only); run one "
            "kind per job:" +
                message};
  }
  return {0, ""};
}

std::optional<std::string> shared_gpus_note(const std::vector<RankSetup>& setups) {
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> ranks_of;
  for (std::size_t r = 0; r < setups.size(); ++r)
    if (!setups[r].host.empty() && setups[r].addresses.rfind("PCI", 0) == 0)
      ranks_of[{setups[r].host, setups[r].addresses}].push_back(r);
  std::string shared;
  for (const auto& [where, ranks] : ranks_of) {
    if (ranks.size() < 2) continue;
    std::string list;
    for (std::size_t i = 0; i < ranks.size(); ++i)
      list += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
    shared += (shared.empty() ? "" : "; ") + std::string("ranks ") + list + " share " +
              setups[ranks.front()].devices + " on " + where.first;
  }
  if (shared.empty()) return std::nullopt;
  return "note: " + shared +
         ", so their timings disturb each other; run at most one rank per GPU (mpirun "
         "--map-by ppr:<GPUs>:node)";
}

}  // namespace ucudnn::cli
