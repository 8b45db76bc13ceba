// ucudnn-bench-hybrid-gpu: CPU/GPU hybrid measured for real on AlexNet's convolutions. For each
// kernel, the GPU's WR plan for the whole batch against the hybrid executor at every split
// b_c = 1..B (or every --step-th): each timed end to end with events on the handle's stream (the
// stream waits for the CPU's share, so the time covers both), median of --repeats, beside what
// the planner predicted and the split it would choose. The GPU is measured by cuDNN, the CPU by
// the CPU backend, the link probed. Needs a GPU (on the test doubles it runs, but their clock
// sees the GPU's share only).
#include <dlfcn.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/hybrid_split.h"
#include "core/micro_table.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/device_memory.h"
#include "cudnn/event_timer.h"
#include "cudnn/gpu_fingerprint.h"
#include "cudnn/host_link_probe.h"
#include "networks/network.h"
#include "shim/hybrid_executor.h"

namespace {

using namespace ucudnn;

HostBackend* load_plugin() {
  void* library = dlopen(UCUDNN_HOST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (!library) return nullptr;
  auto entry = reinterpret_cast<HostBackendEntryPoint>(dlsym(library, kHostBackendEntryPoint));
  return entry ? entry() : nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CPU/GPU hybrid on a GPU: AlexNet, the GPU alone vs every split, measured"};
  std::int64_t batch = 64, step = 1;
  int repeats = 5;
  double limit_mib = 64;
  std::string operations = "all";
  app.add_option("--batch", batch, "mini-batch")->check(CLI::Range(1, 1024));
  app.add_option("--step", step, "measure every step-th split")->check(CLI::Range(1, 1024));
  app.add_option("--repeats", repeats, "timed runs per split (median)")->check(CLI::Range(1, 100));
  app.add_option("--workspace-limit-mib", limit_mib, "the GPU's per-kernel limit")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--operations", operations, "forward or all")
      ->check(CLI::IsMember({"forward", "all"}));
  CLI11_PARSE(app, argc, argv);

  const auto& api = cudnn::cudnn_api();
  const auto& runtime = cudnn::cuda_runtime();
  if (!api.complete() || !runtime.complete()) {
    std::fprintf(stderr, "ucudnn-bench-hybrid-gpu: cuDNN or the CUDA runtime is missing: %s %s\n",
                 api.missing.c_str(), runtime.missing.c_str());
    return 2;
  }
  HostBackend* host = load_plugin();
  if (!host) {
    std::fprintf(stderr, "ucudnn-bench-hybrid-gpu: cannot load %s\n", UCUDNN_HOST_PLUGIN);
    return 2;
  }
  cudnnHandle_t handle = nullptr;
  if (api.cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS) {
    std::fprintf(stderr, "ucudnn-bench-hybrid-gpu: no usable GPU\n");
    return 2;
  }
  const auto fingerprint = cudnn::current_gpu_fingerprint(api, runtime);
  if (!fingerprint) {
    std::fprintf(stderr, "ucudnn-bench-hybrid-gpu: %s\n", fingerprint.error().c_str());
    return 2;
  }
  const auto limit = static_cast<std::uint64_t>(limit_mib * (1 << 20));
  const auto link = cudnn::probe_host_link(runtime, std::min<std::uint64_t>(limit, 8u << 20));
  if (!link) {
    std::fprintf(stderr, "ucudnn-bench-hybrid-gpu: the host-device link cannot be probed\n");
    return 2;
  }
  std::printf("device: %s\nlink: %.2f GB/s, %.4f ms latency; batch %lld within %g MiB\n",
              fingerprint->to_string().c_str(), link->bytes_per_ms / 1e6, link->latency_ms,
              static_cast<long long>(batch), limit_mib);
  cudnn::CudnnBenchmarker gpu(api, runtime, handle, *fingerprint,
                              cudnn::GpuBenchmarkOptions::with_repeats(repeats));
  cudaStream_t stream = nullptr;
  api.cudnnGetStream(handle, &stream);

  std::vector<Operation> ops = {Operation::kForward};
  if (operations == "all")
    ops = {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter};
  double alone_total = 0, best_total = 0;
  for (const auto& layer : alexnet_convolutions(batch))
    for (const auto op : ops) {
      const KernelKey kernel{op, layer.problem};
      const auto device = measure_micro_table(gpu, kernel, BatchSizePolicy::kPowerOfTwo, limit);
      const auto on_host = measure_micro_table(host->benchmarker(), kernel,
                                               BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit);
      const auto split =
          plan_hybrid_split(kernel, device, on_host, *link, limit, HybridMode::kAuto);
      if (!split) {
        std::printf("%s %s: %s\n", layer.name.c_str(), std::string(name_of(op)).c_str(),
                    split.error().c_str());
        continue;
      }
      const ReuseSolutions on_device(device), on_cpu(on_host);
      const auto& p = kernel.problem;
      const std::size_t element = element_size(p.data_type);
      auto x = cudnn::DeviceBuffer::allocate(runtime, p.x.span_elements() * element);
      auto w = cudnn::DeviceBuffer::allocate(runtime, p.w.span_elements() * element);
      auto y = cudnn::DeviceBuffer::allocate(runtime, p.y.span_elements() * element);
      auto workspace = cudnn::DeviceBuffer::allocate(runtime, limit);
      if (!x || !w || !y || !workspace) {
        std::fprintf(stderr, "ucudnn-bench-hybrid-gpu: no device memory for %s\n",
                     layer.name.c_str());
        return 2;
      }
      const float alpha = 1, beta = 0;
      const Configuration alone = on_device.configuration(batch);
      auto measure = [&](const cudnn::PlanExecutor& executor) {
        const auto times = cudnn::time_with_events(runtime, stream, repeats, [&] {
          return executor
                     .run(handle, &alpha, {x->data(), w->data(), y->data()}, workspace->data(),
                          workspace->size(), &beta)
                     .status == CUDNN_STATUS_SUCCESS;
        });
        return times.failure == cudnn::EventTimes::Failure::kNone ? times.median() : -1.0;
      };
      const double alone_ms = measure(cudnn::PlanExecutor(api, handle, kernel, alone));
      std::printf(
          "%s %s: GPU alone %.4f ms (predicted %.4f); planner: b_c %lld, %.4f ms "
          "predicted; throughput rule: b_c %lld\n",
          layer.name.c_str(), std::string(name_of(op)).c_str(), alone_ms, split->device_only_ms,
          static_cast<long long>(split->host_samples), split->configuration.time_ms(),
          static_cast<long long>(split->throughput_rule_samples));
      double best = alone_ms;
      for (std::int64_t c = step; c <= batch; c += step) {
        const auto configuration = hybrid_configuration(kernel, on_device, on_cpu, *link, c);
        if (!configuration) continue;
        try {
          const shim::HybridExecutor executor(api, runtime, handle, kernel, alone, *configuration,
                                              *host);
          const double ms = measure(executor);
          // The CPU's own time inside the call beside what the plan took for it: tells the
          // CPU's computation apart from the copies and the joining when they disagree.
          const auto& share = *configuration->offload;
          const double planned_cpu_ms = share.time_ms() - share.copy_ms;
          const auto host_ms = executor.median_host_share_ms();
          std::printf(
              "    b_c %4lld: %10.4f ms measured, %10.4f predicted; CPU share %8.4f ms in the "
              "call, %8.4f planned, copies %.4f planned%s%s\n",
              static_cast<long long>(c), ms, configuration->time_ms(), host_ms.value_or(-1.0),
              planned_cpu_ms, share.copy_ms, c == split->host_samples ? "  <- planner" : "",
              c == split->throughput_rule_samples ? "  <- rule" : "");
          if (ms >= 0) best = std::min(best, ms);
        } catch (const std::exception& error) {
          std::printf("    b_c %4lld: %s\n", static_cast<long long>(c), error.what());
        }
      }
      alone_total += alone_ms;
      best_total += best;
    }
  std::printf("summary: gpu_alone_ms=%.4f best_measured_split_ms=%.4f gain=%.3fx\n", alone_total,
              best_total, best_total > 0 ? alone_total / best_total : 0.0);
  api.cudnnDestroy(handle);
  return 0;
}
