// ucudnn-bench-planner: plans a ResNet-50-sized problem (Forward, BackwardData and
// BackwardFilter of every convolution) from a synthetic cost model through the WR dynamic
// program, the Pareto fronts and the WD integer program, and times each phase: the paper's
// division (a segment per kernel: UcudnnHandle_t's layer ids), and the shim's sharing division
// (core/workspace_sharing.h) with every kernel on one stream and split over two streams. It also
// counts what a job's first run measures for its WR plans, exhaustively and with the shim's
// pruning (core/micro_table.h), and whether the plans are the same: the synthetic model's few
// percent of noise is what a real GPU's measurements have.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "core/memoizing_benchmarker.h"
#include "core/pareto_front.h"
#include "core/workspace_division.h"
#include "core/workspace_reuse.h"
#include "core/workspace_sharing.h"
#include "networks/network.h"
#include "synthetic_cost_model.h"

using namespace ucudnn;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// A fingerprint of every answer (WR plans, fronts with their micro-batches, the division), so
// that a faster planner can be shown to give the same answers bit for bit.
class AnswerHash {
 public:
  void add(const void* data, std::size_t size) {
    for (auto* p = static_cast<const unsigned char*>(data); size--; ++p)
      hash_ = (hash_ ^ *p) * 0x100000001b3ull;
  }
  template <typename T>
  void add(const T& value) {
    add(&value, sizeof value);
  }
  void add(const Configuration& configuration) {
    add(configuration.micro.size());
    for (const auto& m : configuration.micro) {
      add(m.algorithm.data(), m.algorithm.size());
      add(m.batch);
      add(m.time_ms);
      add(m.workspace_bytes);
    }
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

struct Kernel {
  std::string name;
  std::size_t unique;  // index into the unique kernels (identical layers share a table)
};

// Counts the measurements a planner takes and the GPU time they would occupy: those within the
// limit, as the cuDNN benchmarker times nothing that needs more.
class CountingBenchmarker final : public Benchmarker {
 public:
  CountingBenchmarker(Benchmarker& device, std::uint64_t limit) : device_(device), limit_(limit) {}
  std::string backend_name() const override { return device_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return device_.fingerprint(); }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    return device_.algorithms(kernel);
  }
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    auto measured = device_.benchmark(kernel, algorithm, micro_batch);
    if (measured && measured->workspace_bytes <= limit_) {
      ++measurements;
      gpu_ms += measured->time_ms;
    }
    return measured;
  }
  std::size_t measurements = 0;
  double gpu_ms = 0;

 private:
  Benchmarker& device_;
  std::uint64_t limit_;
};

// A first run's WR plans within `limit`, measured under `pruning`.
struct FirstRun {
  std::size_t measurements = 0;
  double gpu_ms = 0;
  std::vector<Configuration> plans;
};

FirstRun first_run(Benchmarker& model, const std::vector<KernelKey>& unique, BatchSizePolicy policy,
                   std::uint64_t limit, Pruning pruning) {
  CountingBenchmarker counting(model, limit);
  FirstRun run;
  for (const auto& key : unique) {
    auto plan = plan_workspace_reuse(measure_micro_table(counting, key, policy, limit, pruning));
    run.plans.push_back(plan ? *plan : Configuration{});
  }
  run.measurements = counting.measurements;
  run.gpu_ms = counting.gpu_ms;
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Plans ResNet-50's convolution kernels from a synthetic cost model and times the planner."};
  std::int64_t batch = 256;
  std::string policy_name = "all";
  double limit_mib = 64, total_mib = 1024;
  int repeats = 5;
  unsigned threads = 0;
  app.add_option("--batch", batch, "mini-batch size")->check(CLI::Range(1, 4096));
  app.add_option("--policy", policy_name, "batch size policy: all, powerOfTwo, undivided");
  app.add_option("--workspace-limit-mib", limit_mib, "WR per-kernel workspace limit")
      ->check(CLI::PositiveNumber);
  app.add_option("--total-workspace-mib", total_mib, "WD total workspace limit")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats, "timed repetitions; medians are reported")
      ->check(CLI::Range(1, 100));
  app.add_option("--threads", threads,
                 "threads computing Pareto fronts (0: one per hardware thread)");
  CLI11_PARSE(app, argc, argv);
  auto policy = parse_batch_size_policy(policy_name);
  if (!policy) {
    std::fprintf(stderr, "ucudnn-bench-planner: --policy: %s\n", policy.error().c_str());
    return 2;
  }

  bench::SyntheticCostModel model;
  MemoizingBenchmarker memo(model);
  std::vector<Kernel> kernels;
  std::vector<KernelKey> unique;
  std::map<std::string, std::size_t> index_of;
  for (const auto& layer : resnet50_convolutions(batch)) {
    for (auto op : {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
      KernelKey key{op, layer.problem};
      auto [it, inserted] = index_of.emplace(key.to_string(), unique.size());
      if (inserted) unique.push_back(key);
      kernels.push_back({layer.name + " " + std::string(name_of(op)), it->second});
    }
  }

  auto start = std::chrono::steady_clock::now();
  std::vector<MicroTable> tables;
  for (const auto& key : unique)
    tables.push_back(measure_micro_table(memo, key, *policy, kNoWorkspaceLimit));
  const double measure_ms = milliseconds_since(start);

  // WR plans from tables measured within the limit, as the shim's are (measure_micro_table
  // restricts while measuring); restricting copies is not part of planning.
  std::vector<MicroTable> limited_tables;
  for (const auto& table : tables)
    limited_tables.push_back(
        restrict_to_limit(table, static_cast<std::uint64_t>(limit_mib * kMiB)));

  // The fronts WD divides over, from tables within the total, as the shim measures them and
  // the CLI restricts them: configurations beyond the total can never be chosen.
  const auto total_limit = static_cast<std::uint64_t>(total_mib * kMiB);
  std::vector<MicroTable> total_tables;
  for (const auto& table : tables) total_tables.push_back(restrict_to_limit(table, total_limit));

  std::vector<double> dp_times, pareto_times, ilp_times, one_stream_times, two_stream_times;
  std::vector<Configuration> wr;
  std::vector<ParetoFront> fronts;
  Expected<DivisionPlan> wd = Error{"not run"};
  Expected<SharedDivision> one_stream = Error{"not run"}, two_streams = Error{"not run"};
  for (int r = 0; r < repeats; ++r) {
    start = std::chrono::steady_clock::now();
    wr.clear();
    for (const auto& table : limited_tables) {
      auto plan = plan_workspace_reuse(table);
      wr.push_back(plan ? *plan : Configuration{});
    }
    dp_times.push_back(milliseconds_since(start));

    start = std::chrono::steady_clock::now();
    fronts = desirable_configurations(total_tables, threads);
    pareto_times.push_back(milliseconds_since(start));

    std::vector<KernelCandidates> candidates;
    for (const auto& k : kernels) candidates.push_back({k.name, fronts[k.unique]});
    start = std::chrono::steady_clock::now();
    wd = plan_workspace_division(candidates, total_limit);
    ilp_times.push_back(milliseconds_since(start));

    // Every use of a kernel is one run of it: its weight.
    std::vector<SharingKernel> sharing;
    std::map<std::size_t, std::size_t> index_of_unique;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      auto [it, inserted] = index_of_unique.try_emplace(kernels[i].unique, sharing.size());
      if (inserted) sharing.push_back({kernels[i].name, fronts[kernels[i].unique], 0, 0});
      sharing[it->second].weight += 1;
    }
    start = std::chrono::steady_clock::now();
    one_stream = plan_shared_division(sharing, 1, total_limit);
    one_stream_times.push_back(milliseconds_since(start));
    // The first half of the kernels on one stream, the rest on another.
    for (std::size_t k = 0; k < sharing.size(); ++k) sharing[k].group = 2 * k / sharing.size();
    start = std::chrono::steady_clock::now();
    two_streams = plan_shared_division(sharing, 2, total_limit);
    two_stream_times.push_back(milliseconds_since(start));
  }
  if (!one_stream || !two_streams) {
    std::fprintf(stderr, "ucudnn-bench-planner: shared WD failed: %s\n",
                 (one_stream ? two_streams.error() : one_stream.error()).c_str());
    return 1;
  }
  if (!wd) {
    std::fprintf(stderr, "ucudnn-bench-planner: WD failed: %s\n", wd.error().c_str());
    return 1;
  }

  // What the plans buy, in modeled time.
  double undivided = 0, wr_total = 0, unlimited = 0;
  std::size_t front_max = 0;
  for (const auto& k : kernels) {
    const auto& table = tables[k.unique];
    const auto limited = restrict_to_limit(table, static_cast<std::uint64_t>(limit_mib * kMiB));
    const auto* alone = fastest(limited.candidates.back());  // the whole batch in one call
    undivided += alone ? alone->time_ms : 0;
    wr_total += wr[k.unique].time_ms();
    const auto fastest_overall = plan_workspace_reuse(table);
    unlimited += fastest_overall ? fastest_overall->time_ms() : 0;
    front_max = std::max(front_max, fronts[k.unique].size());
  }
  std::printf("kernels: %zu (%zu unique), measurements: %zu, measure_ms=%.1f\n", kernels.size(),
              unique.size(), memo.measurements_taken(), measure_ms);
  std::printf("WR at %.0f MiB per kernel: modeled %.1f ms vs undivided %.1f ms (%.2fx)\n",
              limit_mib, wr_total, undivided, undivided / wr_total);
  std::printf(
      "WD at %.0f MiB total: modeled %.1f ms (unlimited %.1f ms), arena %.1f MiB, "
      "%zu of %zu variables left after reduced-cost fixing\n",
      static_cast<double>(total_limit) / kMiB, wd->time_ms, unlimited,
      static_cast<double>(wd->workspace_bytes) / kMiB, wd->unfixed_variables, wd->variables);
  std::printf(
      "WD shared: one stream %.1f ms in %.1f MiB; two streams (kernels split in halves) %.1f ms "
      "in %.1f MiB, %zu variables\n",
      one_stream->time_ms, static_cast<double>(one_stream->workspace_bytes) / kMiB,
      two_streams->time_ms, static_cast<double>(two_streams->workspace_bytes) / kMiB,
      two_streams->variables);
  AnswerHash answers;
  for (const auto& plan : wr) answers.add(plan);
  for (const auto& front : fronts)
    for (const auto& configuration : front) answers.add(configuration);
  for (auto choice : wd->choice) answers.add(choice);
  for (auto offset : wd->offsets) answers.add(offset);
  std::printf("answers=%016llx\n", static_cast<unsigned long long>(answers.value()));
  const auto wr_limit = static_cast<std::uint64_t>(limit_mib * kMiB);
  const FirstRun all = first_run(model, unique, *policy, wr_limit, Pruning::kExhaustive);
  const FirstRun pruned = first_run(model, unique, *policy, wr_limit, Pruning::kFastest);
  std::size_t differ = 0;
  double all_ms = 0, pruned_ms = 0;
  for (std::size_t k = 0; k < unique.size(); ++k) {
    differ += !(all.plans[k] == pruned.plans[k]);
    all_ms += all.plans[k].time_ms();
    pruned_ms += pruned.plans[k].time_ms();
  }
  std::printf(
      "first run, WR at %.0f MiB: exhaustive %zu timed measurements (%.1f ms of GPU time, each "
      "run once), pruned %zu (%.1f ms): %.2fx fewer, %.2fx less GPU time; %zu of %zu plans differ, "
      "the pruned ones %.3f%% slower in all\n",
      limit_mib, all.measurements, all.gpu_ms, pruned.measurements, pruned.gpu_ms,
      static_cast<double>(all.measurements) / static_cast<double>(pruned.measurements),
      all.gpu_ms / pruned.gpu_ms, differ, unique.size(), 100.0 * (pruned_ms / all_ms - 1));
  const double dp = median(dp_times), pareto = median(pareto_times), ilp = median(ilp_times);
  std::printf(
      "planner kernels=%zu batch=%lld variables=%zu front_max=%zu dp_ms=%.2f pareto_ms=%.2f "
      "ilp_ms=%.2f total_ms=%.2f shared_one_stream_ms=%.2f shared_two_streams_ms=%.2f\n",
      kernels.size(), static_cast<long long>(batch), wd->variables, front_max, dp, pareto, ilp,
      dp + pareto + ilp, median(one_stream_times), median(two_stream_times));
  return 0;
}
