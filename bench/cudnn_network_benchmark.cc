// ucudnn-bench-cudnn: the µ-cuDNN paper's Figs. 10 and 13 on this machine's GPU. For each
// network, batch size and workspace limit, the convolution time of one training iteration
// (Forward, BackwardData and BackwardFilter of every layer) with cuDNN's fastest undivided
// algorithm within the limit, with WR plans (policies powerOfTwo and all), and with a WD plan
// whose one workspace is the limit times the number of layers (the memory a framework that
// gives every layer its own workspace would use), beside the fastest undivided configuration
// with no limit (what an application free of the limit runs). Planned times are sums of
// measured micro-configurations; --per-kernel shows each kernel's; with --run, the undivided choice
// and the WR plans are also run for real, side by side (interleaved, medians), with CUDA events.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "core/memoizing_benchmarker.h"
#include "core/pareto_front.h"
#include "core/workspace_division.h"
#include "core/workspace_reuse.h"
#include "cudnn/algorithms.h"
#include "cudnn/configuration_timer.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/gpu_fingerprint.h"
#include "networks/network.h"
#include "user_input/byte_size.h"

using namespace ucudnn;

namespace {

struct Options {
  std::vector<std::string> networks = {"alexnet", "resnet50"};
  std::vector<std::int64_t> batches = {256, 64};
  std::vector<std::string> limits = {"8MiB", "64MiB", "512MiB"};
  std::vector<std::string> policies = {"powerOfTwo", "all"};
  int repeats = 3;
  bool run = false;
  bool per_kernel = false;
  bool knob_variants = false;
};

// One kernel's plan beside the best undivided configuration within the limit and with none.
// `width`: of the longest label, so that the columns line up.
void print_kernel_baselines(const std::string& label, int width, const std::string& policy,
                            const Configuration& plan, const MicroConfiguration& undivided,
                            const MicroConfiguration* unlimited) {
  std::printf("    %-*s %-10s %-48s %9.3f ms; undivided %s %.3f ms (%s)", width, label.c_str(),
              policy.c_str(), plan.to_string().c_str(), plan.time_ms(), undivided.algorithm.c_str(),
              undivided.time_ms, format_byte_size(undivided.workspace_bytes).c_str());
  if (unlimited)
    std::printf("; no limit %s %.3f ms (%s)", unlimited->algorithm.c_str(), unlimited->time_ms,
                format_byte_size(unlimited->workspace_bytes).c_str());
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"ucudnn-bench-cudnn: undivided vs WR vs WD on the GPU (µ-cuDNN Figs. 10, 13)"};
  app.add_option("--networks", options.networks, "built-in networks or network files");
  app.add_option("--batches", options.batches, "mini-batch sizes");
  app.add_option("--limits", options.limits, "per-kernel workspace limits");
  app.add_option("--policies", options.policies, "WR policies: powerOfTwo, all, undivided");
  app.add_option("--repeats", options.repeats, "timed repeats per measurement (median)");
  app.add_flag("--run", options.run, "also run undivided and WR plans for real, side by side");
  app.add_flag("--per-kernel", options.per_kernel,
               "each kernel's plan, the best undivided within the limit and with none; with "
               "--run also their real times (the plan run twice: a first run that pays for "
               "cuDNN's own set-up shows as a gap between the two)");
  app.add_flag("--knob-variants", options.knob_variants,
               "a configuration over the smallest limit also offers its smaller-workspace knob "
               "values (UCUDNN_KNOB_VARIANTS)");
  CLI11_PARSE(app, argc, argv);

  const auto& api = cudnn::cudnn_api();
  const auto& runtime = cudnn::cuda_runtime();
  if (!api.complete() || !runtime.complete()) {
    std::fprintf(stderr, "ucudnn-bench-cudnn: cuDNN or the CUDA runtime is missing: %s %s\n",
                 api.missing.c_str(), runtime.missing.c_str());
    return 2;
  }
  cudnnHandle_t handle = nullptr;
  if (const auto status = api.cudnnCreate(&handle); status != CUDNN_STATUS_SUCCESS) {
    std::fprintf(stderr, "ucudnn-bench-cudnn: no usable GPU (cudnnCreate: %s)\n",
                 api.cudnnGetErrorString(status));
    return 2;
  }
  const auto fingerprint = cudnn::current_gpu_fingerprint(api, runtime);
  if (!fingerprint) {
    std::fprintf(stderr, "ucudnn-bench-cudnn: %s\n", fingerprint.error().c_str());
    return 2;
  }
  std::printf("device: %s\n", fingerprint->to_string().c_str());
  auto benchmark_options = cudnn::GpuBenchmarkOptions::with_repeats(options.repeats);
  if (options.knob_variants) {
    for (const auto& limit_text : options.limits) {
      const auto limit = parse_byte_size(limit_text);
      if (!limit) {
        std::fprintf(stderr, "ucudnn-bench-cudnn: --limits: %s\n", limit.error().c_str());
        return 2;
      }
      benchmark_options.knob_variants_over =
          std::min(benchmark_options.knob_variants_over.value_or(*limit), *limit);
    }
    std::printf("knob variants: for configurations over %s\n",
                format_byte_size(benchmark_options.knob_variants_over.value_or(0)).c_str());
  }
  cudnn::CudnnBenchmarker device(api, runtime, handle, *fingerprint, benchmark_options);
  MemoizingBenchmarker memo(device);

  std::printf("%-9s %5s %8s | %12s %12s %12s %12s %12s | %7s %7s %7s\n", "network", "batch",
              "limit", "undivided ms", "WR pow2 ms", "WR all ms", "WD ms", "no limit ms", "pow2 x",
              "all x", "WD x");
  for (const auto& name : options.networks)
    for (auto batch : options.batches) {
      auto network = load_network(name, batch);
      if (!network) {
        std::fprintf(stderr, "ucudnn-bench-cudnn: %s\n", network.error().c_str());
        return 2;
      }
      std::vector<KernelKey> kernels;
      std::vector<std::string> labels;  // "conv2 BackwardData"
      for (const auto& layer : network->layers)
        for (auto op :
             {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
          kernels.push_back({op, layer.problem});
          labels.push_back(layer.name + " " + std::string(name_of(op)));
        }
      int label_width = 0;
      for (const auto& label : labels)
        label_width = std::max(label_width, static_cast<int>(label.size()));
      // One measurement serves every limit; the widest policy's table contains the others'.
      std::map<std::string, std::vector<MicroTable>> tables;
      for (const auto& policy_name : options.policies) {
        auto policy = parse_batch_size_policy(policy_name);
        if (!policy) {
          std::fprintf(stderr, "ucudnn-bench-cudnn: %s\n", policy.error().c_str());
          return 2;
        }
        for (std::size_t i = 0; i < kernels.size(); ++i) {
          std::fprintf(stderr, "\r%s batch %lld, %s: measuring kernel %zu/%zu   ", name.c_str(),
                       static_cast<long long>(batch), policy_name.c_str(), i + 1, kernels.size());
          tables[policy_name].push_back(
              measure_micro_table(memo, kernels[i], *policy, kNoWorkspaceLimit));
        }
      }
      std::fprintf(stderr, "\n");
      for (const auto& limit_text : options.limits) {
        const auto limit = parse_byte_size(limit_text);
        if (!limit) {
          std::fprintf(stderr, "ucudnn-bench-cudnn: %s\n", limit.error().c_str());
          return 2;
        }
        double undivided = 0, unlimited = 0;
        std::vector<Configuration> undivided_plans;
        std::vector<const MicroConfiguration*> unlimited_best;
        std::map<std::string, double> reuse;
        std::map<std::string, std::vector<Configuration>> reuse_plans;
        bool feasible = true;
        for (const auto& [policy, table] : tables)
          for (std::size_t i = 0; i < kernels.size(); ++i) {
            const auto within = restrict_to_limit(table[i], *limit);
            auto plan = plan_workspace_reuse(within);
            if (!plan) {
              feasible = false;
              continue;
            }
            reuse[policy] += plan->time_ms();
            reuse_plans[policy].push_back(*plan);
            if (policy == tables.begin()->first) {
              const MicroConfiguration* best = fastest(within.candidates.back());
              if (!best) feasible = false;
              if (best) {
                undivided += best->time_ms;
                undivided_plans.push_back(Configuration{{*best}});
              }
              // Measured with no limit: the whole batch's fastest, at any workspace.
              const MicroConfiguration* no_limit = fastest(table[i].candidates.back());
              unlimited += no_limit ? no_limit->time_ms : 0;
              unlimited_best.push_back(no_limit);
            }
          }
        if (!feasible) {
          std::printf("%-9s %5lld %8s | nothing fits\n", name.c_str(),
                      static_cast<long long>(batch), limit_text.c_str());
          continue;
        }
        // WD: one workspace of limit x layers for the whole network.
        const std::uint64_t total = *limit * network->layers.size();
        const auto& wd_table =
            tables.count("powerOfTwo") ? tables["powerOfTwo"] : tables.begin()->second;
        std::vector<KernelCandidates> candidates;
        for (std::size_t i = 0; i < kernels.size(); ++i)
          candidates.push_back({kernels[i].to_string(),
                                desirable_configurations(restrict_to_limit(wd_table[i], total))});
        const auto division = plan_workspace_division(candidates, total);
        // A policy not asked for, or a division that failed, prints "-" rather than a zero
        // that reads like a measurement.
        auto cell = [](std::optional<double> value, const char* format) {
          char text[32] = "-";
          if (value) std::snprintf(text, sizeof text, format, *value);
          return std::string(text);
        };
        auto plan_ms = [&](const std::string& policy) -> std::optional<double> {
          if (!reuse.count(policy)) return std::nullopt;
          return reuse[policy];
        };
        auto speedup = [&](std::optional<double> ms) -> std::optional<double> {
          if (!ms || *ms <= 0) return std::nullopt;
          return undivided / *ms;
        };
        const std::optional<double> wd =
            division ? std::optional<double>(division->time_ms) : std::nullopt;
        std::printf("%-9s %5lld %8s | %12.3f %12s %12s %12s %12.3f | %7s %7s %7s\n", name.c_str(),
                    static_cast<long long>(batch), limit_text.c_str(), undivided,
                    cell(plan_ms("powerOfTwo"), "%.3f").c_str(),
                    cell(plan_ms("all"), "%.3f").c_str(), cell(wd, "%.3f").c_str(), unlimited,
                    cell(speedup(plan_ms("powerOfTwo")), "%.2fx").c_str(),
                    cell(speedup(plan_ms("all")), "%.2fx").c_str(),
                    cell(speedup(wd), "%.2fx").c_str());
        if (options.per_kernel && !options.run)
          for (const auto& [policy, plans] : reuse_plans)
            for (std::size_t i = 0; i < kernels.size(); ++i)
              print_kernel_baselines(labels[i], label_width, policy, plans[i],
                                     undivided_plans[i].micro[0], unlimited_best[i]);
        if (options.run)
          for (const auto& [policy, plans] : reuse_plans) {
            double plain = 0, planned = 0;
            for (std::size_t i = 0; i < kernels.size(); ++i) {
              const auto a = cudnn::time_configuration(api, runtime, handle, kernels[i],
                                                       undivided_plans[i], options.repeats);
              const auto b = cudnn::time_configuration(api, runtime, handle, kernels[i], plans[i],
                                                       options.repeats);
              plain += a.value_or(std::nan(""));
              planned += b.value_or(std::nan(""));
              // A sum with a hole says nothing: name the plan that could not run.
              if (!b || !a)
                std::printf("  run for real: %s %s, %s %s did not run\n",
                            std::string(name_of(kernels[i].operation)).c_str(),
                            kernels[i].to_string().c_str(), !b ? "the plan" : "undivided",
                            (!b ? plans[i] : undivided_plans[i]).to_string().c_str());
              if (options.per_kernel) {
                const auto again = cudnn::time_configuration(api, runtime, handle, kernels[i],
                                                             plans[i], options.repeats);
                std::printf(
                    "    %-*s %-48s planned %9.3f ms, real %9.3f then %9.3f ms "
                    "(undivided %.3f; no limit, planned %.3f)\n",
                    label_width, labels[i].c_str(), plans[i].to_string().c_str(),
                    plans[i].time_ms(), b.value_or(std::nan("")), again.value_or(std::nan("")),
                    a.value_or(std::nan("")),
                    unlimited_best[i] ? unlimited_best[i]->time_ms : std::nan(""));
              }
            }
            std::printf("  run for real, WR %s: undivided %.3f ms, planned %.3f ms: %.2fx\n",
                        policy.c_str(), plain, planned, plain / planned);
          }
      }
    }
  api.cudnnDestroy(handle);
  return 0;
}
