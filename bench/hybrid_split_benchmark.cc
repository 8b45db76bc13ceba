// ucudnn-bench-hybrid: the CPU/GPU split the planner chooses for AlexNet's kernels against
// Caffe con Troll's throughput rule (the CPU's share proportional to its throughput on the
// whole batch). The GPU's times are the cuDNN test doubles' cost model (what the shim measures
// on the doubles; --gpu-scale makes it slower, to stand for a weaker GPU), the CPU's are
// measured here by the CPU backend, and the link is modelled (--link-gbps). Per kernel: the
// GPU alone, the planner's split, the rule's split and their predicted times; --sweep prints
// the predicted time at every split. The summary line gives the totals and the geometric mean
// of rule / planner.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/hybrid_split.h"
#include "core/micro_table.h"
#include "cpu_benchmarker.h"
#include "model_benchmarker.h"
#include "networks/network.h"
#include "thread_pool.h"

namespace {

using namespace ucudnn;

// The doubles' model, `scale` times slower.
class ScaledModel final : public Benchmarker {
 public:
  explicit ScaledModel(double scale) : scale_(scale) {}
  std::string backend_name() const override { return model_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return model_.fingerprint(); }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    return model_.algorithms(kernel);
  }
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    auto measured = model_.benchmark(kernel, algorithm, micro_batch);
    if (measured) measured->time_ms *= scale_;
    return measured;
  }

 private:
  fakecuda::ModelBenchmarker model_;
  double scale_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CPU/GPU hybrid: the planner's split vs the throughput rule on AlexNet"};
  std::int64_t batch = 16;
  std::string operations = "forward";
  double link_gbps = 12, gpu_scale = 1, limit_mib = 64;
  int repeats = 1;
  bool sweep = false;
  app.add_option("--batch", batch, "mini-batch")->check(CLI::Range(1, 1024));
  app.add_option("--operations", operations, "forward or all")
      ->check(CLI::IsMember({"forward", "all"}));
  app.add_option("--link-gbps", link_gbps, "host-device bandwidth in GB/s (0: free copies)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--gpu-scale", gpu_scale, "the GPU's modelled times multiplied by this")
      ->check(CLI::PositiveNumber);
  app.add_option("--workspace-limit-mib", limit_mib, "the GPU's per-kernel limit")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--repeats", repeats, "timed repeats per CPU measurement")
      ->check(CLI::Range(1, 100));
  app.add_flag("--sweep", sweep, "print the predicted time at every split");
  CLI11_PARSE(app, argc, argv);

  const HostLink link{link_gbps > 0 ? link_gbps * 1e6 : std::numeric_limits<double>::infinity(),
                      link_gbps > 0 ? 0.01 : 0};
  const auto limit = static_cast<std::uint64_t>(limit_mib * (1 << 20));
  ScaledModel gpu(gpu_scale);
  cpu::ThreadPool pool;
  cpu::CpuBenchmarker host(pool, {1, repeats, 0.5, {}});
  std::vector<Operation> ops = {Operation::kForward};
  if (operations == "all")
    ops = {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter};

  std::printf("AlexNet batch %lld, GPU model x%g within %g MiB, link %g GB/s, %u CPU threads\n",
              static_cast<long long>(batch), gpu_scale, limit_mib, link_gbps, pool.size());
  std::printf("%-6s %-15s %10s | %6s %10s %6s | %6s %10s %10s\n", "layer", "operation", "GPU ms",
              "b_c", "split ms", "gain", "rule", "rule ms", "rule/best");
  double gpu_total = 0, best_total = 0, rule_total = 0, log_ratio = 0;
  int kernels = 0;
  for (const auto& layer : alexnet_convolutions(batch)) {
    for (const auto op : ops) {
      const KernelKey kernel{op, layer.problem};
      const auto device = measure_micro_table(gpu, kernel, BatchSizePolicy::kPowerOfTwo, limit);
      const auto on_host =
          measure_micro_table(host, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit);
      const auto split = plan_hybrid_split(kernel, device, on_host, link, limit, HybridMode::kAuto);
      if (!split) {
        std::printf("%-6s %-15s %s\n", layer.name.c_str(), std::string(name_of(op)).c_str(),
                    split.error().c_str());
        continue;
      }
      const double best = split->configuration.time_ms();
      std::printf("%-6s %-15s %10.4f | %6lld %10.4f %5.2fx | %6lld %10.4f %9.3fx\n",
                  layer.name.c_str(), std::string(name_of(op)).c_str(), split->device_only_ms,
                  static_cast<long long>(split->host_samples), best, split->device_only_ms / best,
                  static_cast<long long>(split->throughput_rule_samples), split->throughput_rule_ms,
                  split->throughput_rule_ms / best);
      if (sweep) {
        const ReuseSolutions on_device(device), on_cpu(on_host);
        for (std::int64_t c = 0; c <= batch; ++c)
          if (auto at = hybrid_configuration(kernel, on_device, on_cpu, link, c))
            std::printf("    b_c %4lld: %10.4f ms (GPU %.4f, CPU + copies %.4f)\n",
                        static_cast<long long>(c), at->time_ms(), at->device_time_ms(),
                        at->offload ? at->offload->time_ms() : 0.0);
      }
      gpu_total += split->device_only_ms;
      best_total += best;
      rule_total += split->throughput_rule_ms;
      log_ratio += std::log(split->throughput_rule_ms / best);
      ++kernels;
    }
  }
  if (kernels == 0) return 1;
  std::printf(
      "summary: kernels=%d gpu_alone_ms=%.4f planner_ms=%.4f rule_ms=%.4f "
      "planner_gain=%.3fx rule_over_planner_geomean=%.3fx\n",
      kernels, gpu_total, best_total, rule_total, gpu_total / best_total,
      std::exp(log_ratio / kernels));
  return 0;
}
