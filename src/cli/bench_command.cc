#include "bench_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_setup.h"
#include "benchmark_work.h"
#include "cluster.h"
#include "core/memory_store.h"
#include "core/text.h"
#include "database_access.h"
#include "db/default_store.h"
#include "exclusion_review.h"
#include "exit_status.h"
#include "interruption_notice.h"
#include "plan_check.h"
#include "plan_report.h"
#include "planning.h"
#include "store_reader.h"
#include "user_input/byte_size.h"

namespace ucudnn::cli {

void add_bench_command(CLI::App& app, BenchOptions& options) {
  auto* bench = add_planning_command(
      app, "bench",
      "Benchmark every kernel of a network, store the results and plans, print the plan",
      options.planning);
  bench->add_option("--devices", options.devices,
                    "cudnn: GPUs to benchmark on in parallel, 'all' or '0,1,...' (default: "
                    "UCUDNN_DEVICES, else the current GPU)");
  bench->add_option("--repeats", options.repeats, "timed runs per measurement (median)")
      ->check(whole_number_in(1, 1000))  // as UCUDNN_BENCHMARK_REPEATS
      ->capture_default_str()
      ->each([&options](const std::string&) { options.repeats_given = true; });
  bench->add_flag("--knob-variants", options.knob_variants,
                  "cudnn: a configuration whose workspace is over --workspace-limit also offers "
                  "its smaller-workspace knob values; the plans are for jobs run with "
                  "UCUDNN_KNOB_VARIANTS=on");
  // A callback, not a negated flag: CLI11's help showed "--no-check-plans{false}".
  bench->add_flag_callback(
      "--no-check-plans,--no-verify", [&options] { options.check_plans = false; },
      "do not run each plan beside its undivided baseline on the same inputs (the comparison of "
      "outputs and of planned with measured times)");
}

namespace {

void report(const std::string& message) {
  report_error("bench", message);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Rank 0's network text on every rank: ranks on other nodes may not have the file.
Expected<NetworkText> shared_network_text(const std::string& name_or_path, Cluster& cluster) {
  Expected<NetworkText> mine = Error{""};
  if (cluster.root()) mine = network_text(name_or_path);
  const std::string error = cluster.broadcast(mine ? "" : mine.error());
  const std::string text = cluster.broadcast(mine ? mine->text : "");
  const std::string source = cluster.broadcast(mine ? mine->source : "");
  const std::string name = cluster.broadcast(mine ? mine->default_name : "");
  if (!error.empty()) return Error{error};
  if (cluster.root()) return mine;  // with its notes, which rank 0 prints
  return NetworkText{text, source, name, {}};
}

void print_header(const PlanningRequest& request, const std::vector<NetworkKernel>& kernels,
                  const std::vector<RankSetup>& setups, const std::string& database,
                  const WorkList& work) {
  print_network_notes(request.network, "bench");
  std::printf(
      "ucudnn bench: %s (%s, %s), batch %lld, %s backend, policy %s, "
      "WR limit %s",
      request.network.name.c_str(), counted(request.network.layers.size(), "layer").c_str(),
      counted(kernels.size(), "kernel").c_str(), static_cast<long long>(request.batch),
      request.backend.c_str(), std::string(name_of(request.policy)).c_str(),
      format_byte_size(request.workspace_limit).c_str());
  if (request.total_workspace)
    std::printf(", WD total %s", format_byte_size(*request.total_workspace).c_str());
  if (request.knob_variants)
    std::printf(", knob variants for configurations over %s",
                format_byte_size(request.workspace_limit).c_str());
  std::printf("\n");
  if (setups.size() == 1) {
    std::printf("devices: %s\n", setups[0].devices.c_str());
  } else {
    std::printf("cluster: %zu ranks\n", setups.size());
    for (std::size_t r = 0; r < setups.size(); ++r)
      std::printf("  rank %zu: %s\n", r, setups[r].devices.c_str());
  }
  std::printf("fingerprint: %s\ndatabase: %s\n", setups[0].fingerprint.c_str(), database.c_str());
  std::printf(
      "to measure: %zu measurements (an algorithm on a kernel at one micro-batch size) in %zu "
      "(kernel, micro-batch) items; %zu already in the database\n",
      work.measurements(), work.items.size(), work.reused);
  std::fflush(stdout);
}

// Rank 0's thread that takes the items the other ranks post (each an outcome of one item's
// results) and stores each, until every rank has ended its posts; an item it cannot read or
// store goes into `errors`, rank by rank. Should taking itself fail, the job ends: a rank still
// sending would wait for rank 0 forever.
void take_posted_items(Cluster& cluster, const WorkList& work, const ItemMeasured& store_item,
                       std::mutex& errors_mutex, std::string& errors) {
  auto fail = [&](int rank, const std::string& error) {
    std::lock_guard lock(errors_mutex);
    errors += "\n  rank " + std::to_string(rank) + ": " + error;
  };
  try {
    cluster.take_posts([&](int rank, const std::string& text) {
      auto item = outcome_from_json(text, work);
      if (!item) return fail(rank, item.error());
      try {
        store_item(item->results);
      } catch (const std::exception& error) {
        fail(rank, std::string("storing its measurements: ") + error.what());
      }
    });
  } catch (const std::exception& error) {
    report(std::string("rank 0: taking the other ranks' measurements: ") + error.what());
    cluster.abort(kFailure);
  }
}

int bench(const BenchOptions& options, Cluster& cluster) {
  const bool root = cluster.root();
  const auto network = shared_network_text(options.planning.network, cluster);
  Setup setup = set_up(options, cluster, network);
  std::vector<RankSetup> setups;
  for (const auto& text : cluster.all_gather(to_json(setup.summary)))
    setups.push_back(rank_setup_from_json(text));
  if (auto [status, message] = verdict(setups); status) {
    if (root) report(message);
    return status;
  }
  const PlanningRequest& request = *setup.request;
  const auto kernels = network_kernels(request.network);
  const std::string& fingerprint = setup.summary.fingerprint;
  ExcludingBenchmarker& device = setup.workers.front()->benchmarker();

  // Rank 0 alone reads and writes the database; the others get the work list from it.
  std::optional<OpenedStore> database;
  WorkList work;
  std::string abort;
  if (root) {
    auto opened = open_store_for_writing(options.planning.database);
    if (opened) {
      database = std::move(opened).value();
      work = find_missing_work(kernels, request.policy, device, *database->store, fingerprint);
      const ExclusionReview review = review_exclusion(
          device.account(), request.excluded_by, request.backend, kernels, available_backends());
      for (const auto& warning : review.warnings)
        std::fprintf(stderr, "ucudnn bench: warning: %s\n", warning.c_str());
      abort = review.error;
    } else {
      abort = opened.error();
    }
    if (abort.empty()) {
      print_header(request, kernels, setups, database->description, work);
      if (request.backend == "cpu" && cluster.local_size() > 1)
        std::printf(
            "note: %d ranks share this node's cores, so their CPU timings disturb each "
            "other; run one rank per node\n",
            cluster.local_size());
      if (const auto note = shared_gpus_note(setups)) std::printf("%s\n", note->c_str());
      std::fflush(stdout);
    }
  }
  const std::string shared =
      cluster.broadcast(abort.empty() ? "W" + work_to_json(work) : "A" + abort);
  if (shared.front() == 'A') {
    if (root) report(shared.substr(1));
    return kFailure;
  }
  ShareOutcome outcome;
  if (!root) {
    auto received = work_from_json(shared.substr(1), kernels.size());
    if (received)
      work = std::move(received).value();
    else
      outcome.error = received.error();  // still takes part in the gather below
  }

  const auto start = std::chrono::steady_clock::now();
  // Each item is stored as soon as it is measured, so that a bench stopped midway (Ctrl-C, a
  // scheduler's time limit, a rank lost to a device fault, after which MPI ends the whole job)
  // keeps what was measured: rank 0 stores its own, and takes the other ranks' as they post
  // them, on a thread of its own.
  std::mutex stored_mutex;          // rank 0: its workers' items and the other ranks' at once
  std::vector<WorkResult> results;  // rank 0: every rank's, as stored
  std::string errors;               // rank 0: what went wrong, rank by rank
  std::optional<InterruptionNotice> interruption;
  const ItemMeasured store_item = [&](const std::vector<WorkResult>& item_results) {
    std::lock_guard lock(stored_mutex);
    database->store->put_measurements(
        to_records(kernels, work, item_results, fingerprint, request.backend));
    results.insert(results.end(), item_results.begin(), item_results.end());
    interruption->stored();
  };
  std::optional<std::jthread> taking;
  if (root) {
    interruption.emplace("bench");
    if (cluster.size() > 1)
      taking.emplace([&] { take_posted_items(cluster, work, store_item, stored_mutex, errors); });
  }
  try {
    if (outcome.error.empty()) {
      const std::vector<std::size_t> share =
          share_of(cluster.rank(), cluster.size(), kernels, work);
      double weight = 0;
      for (const std::size_t i : share) weight += work_weight(kernels, work.items[i]);
      std::vector<Worker*> workers;
      for (auto& worker : setup.workers) workers.push_back(worker.get());
      std::optional<Progress> progress;
      // One bar: rank 0's share stands for the job's (the shares weigh alike by construction).
      if (root && !share.empty())
        progress.emplace(
            stderr, isatty(STDERR_FILENO) != 0, share.size(), weight,
            cluster.size() > 1 ? "rank 0 of " + std::to_string(cluster.size()) + ": " : "");
      const ItemMeasured post_item = [&](const std::vector<WorkResult>& item_results) {
        ShareOutcome item;
        item.results = item_results;
        cluster.post(outcome_to_json(item));
      };
      outcome = measure_share(kernels, work, share, workers, progress ? &*progress : nullptr,
                              root ? store_item : post_item);
    }
  } catch (const std::exception& error) {
    if (!taking) throw;
    // Unwinding would join the thread taking the posts, which waits for every rank's share.
    report("rank 0: " + std::string(error.what()));
    cluster.abort(kFailure);
  }
  if (!root) cluster.end_posts();
  taking.reset();           // rank 0: every rank's items are stored
  outcome.results.clear();  // each was stored, or posted, as it was measured
  const auto outcomes = cluster.gather(outcome_to_json(outcome));
  if (!root) return 0;
  interruption.reset();  // everything measured is stored: an interruption from here loses nothing

  std::size_t unavailable = 0;
  std::string first_unavailable;
  for (std::size_t r = 0; r < outcomes.size(); ++r) {
    auto parsed = outcome_from_json(outcomes[r], work);
    const std::string error = parsed ? parsed->error : parsed.error();
    if (!error.empty()) {
      errors += (outcomes.size() > 1 ? "\n  rank " + std::to_string(r) + ": " : "") + error;
      continue;
    }
    if (parsed->unavailable > 0 && unavailable == 0) first_unavailable = parsed->first_unavailable;
    unavailable += parsed->unavailable;
  }
  if (!errors.empty()) {
    report("benchmarking failed: " + errors +
           (results.empty() ? std::string()
                            : "\nthe " + counted(results.size(), "measurement") +
                                  " taken before are stored: the same command measures only "
                                  "the rest"));
    confirm_saved(*database, "bench");  // says so where they were not saved either
    return kFailure;
  }
  const auto records = to_records(kernels, work, results, fingerprint, request.backend);
  std::printf("measured %zu new, reused %zu in %.1f s\n", records.size(), work.reused,
              seconds_since(start));
  // What is in the database is never measured again, whatever the repeats it was taken with.
  if (options.repeats_given && work.reused > 0)
    std::printf(
        "(--repeats %d applies to the new measurements; to measure all again with it, "
        "bench into a new --database)\n",
        options.repeats);
  std::printf("\n");
  if (unavailable > 0) {
    // A plan made without them could be worse than the best, and would be stored as the best.
    std::fflush(stdout);
    report(std::to_string(unavailable) + " measurement" + (unavailable == 1 ? "" : "s") +
           " could not be taken now, e.g. " + first_unavailable + "; the " +
           std::to_string(records.size()) +
           " taken are stored. No plan was made: run the same command again when the device "
           "has the memory free (it measures only what is missing), or with a smaller --batch "
           "where its memory can never hold this one");
    confirm_saved(*database, "bench");  // says so where the measurements were not saved either
    return kFailure;
  }

  // Planning reads what was just measured and what the database had.
  MemoryStore fresh;
  fresh.put_measurements(records);
  StoreReader reader(request.backend, fingerprint,
                     [&](const KernelKey& k) { return device.algorithms(k); },
                     {&fresh, database->store.get()});
  const NetworkPlan plan = plan_network(reader, kernels, request);
  if (const auto missing = reader.missing(); !missing.empty()) {
    report("internal error: " + std::to_string(missing.size()) +
           " measurements are missing after benchmarking, e.g. " + missing.begin()->algorithm +
           " at micro-batch " + std::to_string(missing.begin()->micro_batch) + " of " +
           missing.begin()->kernel);
    return kFailure;
  }
  // A plan's key does not name the exclusion: a job run without it would take these for the
  // best. Its measurements are stored; a job under the same exclusion plans from them.
  if (request.excluded.empty()) store_plans(*database->store, fingerprint, kernels, plan, request);
  print_wr_plan(stdout, kernels, plan, request);
  std::fflush(stdout);
  std::optional<PlanCheckSummary> check;
  if (options.check_plans)
    check = check_plans(stdout, *setup.workers.front(), kernels, plan, options.repeats);
  print_wd_plan(stdout, kernels, plan, request);
  if (!request.excluded.empty())
    std::printf(
        "\nplans not stored: they were made under %s, which their key does not name (a job run "
        "without it would take them for the best); the measurements are stored, and a job "
        "under the same exclusion plans from them\n",
        request.excluded_by.c_str());
  std::fflush(stdout);
  if (!confirm_saved(*database, "bench")) return kFailure;

  const PlanTotals totals = plan_totals(kernels, plan);
  if (totals.without_plan) {
    report(std::to_string(totals.without_plan) +
           (totals.without_plan == 1 ? " kernel has" : " kernels have") +
           " no configuration within " + format_byte_size(request.workspace_limit));
    return kFailure;
  }
  if (plan.division && !*plan.division) return kFailure;
  if (check && check->disagreeing) return kFailure;
  return 0;
}

}  // namespace

int run_bench_command(const BenchOptions& options) {
  auto joined = join_cluster(process_environment);
  if (!joined) {
    report(joined.error());
    return kUsageError;
  }
  std::unique_ptr<Cluster> cluster = std::move(joined).value();
  try {
    return bench(options, *cluster);
  } catch (const std::exception& error) {
    report((cluster->size() > 1 ? "rank " + std::to_string(cluster->rank()) + ": " : "") +
           error.what());
    // The other ranks may wait in a collective call for this one.
    if (cluster->size() > 1) cluster->abort(kFailure);
    return kFailure;
  }
}

}  // namespace ucudnn::cli
