#include "bench_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include "aligned_buffer.h"
#include "core/byte_size.h"
#include "core/memoizing_benchmarker.h"
#include "core/network.h"
#include "core/pareto_front.h"
#include "core/workspace_division.h"
#include "core/workspace_reuse.h"
#include "cpu_benchmarker.h"
#include "gemm.h"
#include "host_tensors.h"
#include "plan_executor.h"

namespace ucudnn::cli {

void add_bench_command(CLI::App& app, BenchOptions& options) {
  auto* bench = app.add_subcommand("bench", "Benchmark every kernel of a network and plan it");
  bench->add_option("--network", options.network, "built-in network: alexnet, resnet50")
      ->capture_default_str();
  bench->add_option("--batch", options.batch, "mini-batch size")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  bench->add_option("--backend", options.backend, "device: cpu")->capture_default_str();
  bench->add_option("--policy", options.policy, "micro-batch sizes: all, powerOfTwo, undivided")
      ->capture_default_str();
  bench
      ->add_option("--workspace-limit", options.workspace_limit,
                   "per-kernel workspace limit (WR), e.g. 8MiB")
      ->capture_default_str();
  bench->add_option("--total-workspace", options.total_workspace,
                    "total workspace for the whole network: also plan WD, e.g. 256MiB");
  bench->add_option("--repeats", options.repeats, "benchmark repeats (median)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  bench->add_flag("!--no-verify", options.verify,
                  "do not run the plans against the undivided baseline");
}

namespace {

struct Kernel {
  std::string layer;
  KernelKey key;
};

double median_ms_of(int repeats, const std::function<void()>& run) {
  std::vector<double> times;
  run();  // warm-up
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Runs a configuration on fresh buffers and returns its median time.
double measure_configuration(const KernelKey& key, const Configuration& configuration, int repeats,
                             cpu::ThreadPool& pool) {
  std::mt19937_64 random(std::random_device{}());
  cpu::HostTensors buffers(key.problem, random);
  cpu::AlignedBuffer workspace(cpu::configuration_workspace_bytes(key, configuration));
  return median_ms_of(repeats, [&] {
    cpu::run_configuration(key, configuration, buffers.tensors(), {1, 0},
                           {workspace.data(), workspace.size()}, pool);
  });
}

}  // namespace

int run_bench_command(const BenchOptions& options) {
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "ucudnn bench: %s\n", message.c_str());
    return 2;
  };
  if (options.backend != "cpu")
    return fail("--backend '" + options.backend +
                "' is not available in this build; valid values: cpu");
  auto policy = parse_batch_size_policy(options.policy);
  if (!policy) return fail("--policy: " + policy.error());
  auto limit = parse_byte_size(options.workspace_limit);
  if (!limit) return fail("--workspace-limit: " + limit.error());
  std::optional<std::uint64_t> total;
  if (!options.total_workspace.empty()) {
    auto parsed = parse_byte_size(options.total_workspace);
    if (!parsed) return fail("--total-workspace: " + parsed.error());
    total = *parsed;
  }
  auto layers = builtin_network(options.network, options.batch);
  if (!layers)
    return fail("--network '" + options.network +
                "' is not a built-in network; valid values: alexnet, resnet50");

  cpu::ThreadPool pool;
  cpu::CpuBenchmarker device(pool, {1, options.repeats, 0.5});
  MemoizingBenchmarker memo(device);
  std::vector<Kernel> kernels;
  for (const auto& layer : *layers)
    for (auto op : {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter})
      kernels.push_back({layer.name, KernelKey{op, layer.problem}});

  std::printf(
      "ucudnn bench: %s, batch %lld, %s backend (%u threads, BLAS kernel %s), policy %s, WR limit "
      "%s\n",
      options.network.c_str(), static_cast<long long>(options.batch), options.backend.c_str(),
      pool.size(), cpu::blas_kernel_name(), std::string(name_of(*policy)).c_str(),
      format_byte_size(*limit).c_str());
  std::vector<MicroTable> tables;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    std::fprintf(stderr, "[%zu/%zu] benchmarking %s %s\n", i + 1, kernels.size(),
                 kernels[i].layer.c_str(), std::string(name_of(kernels[i].key.operation)).c_str());
    tables.push_back(measure_micro_table(memo, kernels[i].key, *policy, kNoWorkspaceLimit));
  }
  const double benchmark_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("benchmarked %zu measurements in %.1f s\n\n", memo.measurements_taken(), benchmark_s);

  std::printf("%-6s %-14s %-58s %9s %10s | %-21s %9s | %7s\n", "layer", "operation",
              "WR plan (solver:micro-batch)", "plan ms", "workspace", "best undivided", "ms",
              "speedup");
  double plan_total = 0, undivided_total = 0, measured_plan = 0, measured_undivided = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    const auto limited = restrict_to_limit(tables[i], *limit);
    auto plan = plan_workspace_reuse(limited);
    const MicroConfiguration* undivided = fastest(limited.candidates.back());
    if (!plan || !undivided)
      return fail(k.layer + " " + std::string(name_of(k.key.operation)) + ": " +
                  (plan ? "no undivided solver fits" : plan.error()));
    std::printf("%-6s %-14s %-58s %9.2f %10s | %-21s %9.2f | %6.2fx\n", k.layer.c_str(),
                std::string(name_of(k.key.operation)).c_str(), plan->to_string().c_str(),
                plan->time_ms(), format_byte_size(plan->workspace_bytes()).c_str(),
                undivided->algorithm.c_str(), undivided->time_ms,
                undivided->time_ms / plan->time_ms());
    plan_total += plan->time_ms();
    undivided_total += undivided->time_ms;
    if (options.verify) {
      measured_plan += measure_configuration(k.key, *plan, options.repeats, pool);
      measured_undivided +=
          measure_configuration(k.key, Configuration{{*undivided}}, options.repeats, pool);
    }
  }
  std::printf("\nWR total: planned %.1f ms vs best undivided %.1f ms: %.2fx\n", plan_total,
              undivided_total, undivided_total / plan_total);
  if (options.verify)
    std::printf(
        "WR total, run for real side by side: plan %.1f ms vs best undivided %.1f ms: %.2fx\n",
        measured_plan, measured_undivided, measured_undivided / measured_plan);

  if (total) {
    std::vector<KernelCandidates> candidates;
    for (std::size_t i = 0; i < kernels.size(); ++i)
      candidates.push_back({kernels[i].layer + " " + std::string(name_of(kernels[i].key.operation)),
                            desirable_configurations(restrict_to_limit(tables[i], *total))});
    auto division = plan_workspace_division(candidates, *total);
    if (!division) return fail("WD: " + division.error());
    std::printf("\nWD plan under a total of %s:\n", format_byte_size(*total).c_str());
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const auto& c = candidates[i].front[division->choice[i]];
      std::printf("%-21s %-58s %9.2f %10s at offset %s\n", candidates[i].name.c_str(),
                  c.to_string().c_str(), c.time_ms(), format_byte_size(c.workspace_bytes()).c_str(),
                  format_byte_size(division->offsets[i]).c_str());
    }
    std::printf("WD total: planned %.1f ms in %s (%zu variables)\n", division->time_ms,
                format_byte_size(division->workspace_bytes).c_str(), division->variables);
  }
  return 0;
}

}  // namespace ucudnn::cli
