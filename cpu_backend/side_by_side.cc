#include "side_by_side.h"

#include <algorithm>
#include <chrono>

#include "aligned_buffer.h"
#include "host_tensors.h"
#include "plan_executor.h"

namespace ucudnn::cpu {

SideBySideRuns run_side_by_side(const KernelKey& kernel, const Configuration& plan,
                                const Configuration& baseline, int repeats, ThreadPool& pool,
                                std::mt19937_64& random) {
  HostTensors plan_tensors(kernel.problem, random);
  HostTensors baseline_tensors = plan_tensors;  // the same inputs; each writes its own output
  AlignedBuffer workspace(std::max(configuration_workspace_bytes(kernel, plan),
                                   configuration_workspace_bytes(kernel, baseline)));
  const Workspace ws{workspace.data(), workspace.size()};
  auto run = [&](const Configuration& configuration, HostTensors& tensors) {
    const auto start = std::chrono::steady_clock::now();
    run_configuration(kernel, configuration, tensors.tensors(), {1, 0}, ws, pool);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  run(plan, plan_tensors);  // warm-up: first touches, oneDNN's JIT
  run(baseline, baseline_tensors);
  std::vector<double> plan_times, baseline_times;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    plan_times.push_back(run(plan, plan_tensors));
    baseline_times.push_back(run(baseline, baseline_tensors));
  }
  auto median = [](std::vector<double>& times) {
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  };
  const DataType type = kernel.problem.data_type;
  OutputComparison outputs{
      normwise_difference(plan_tensors.output_values(kernel.operation, type),
                          baseline_tensors.output_values(kernel.operation, type)),
      configuration_tolerance(kernel, plan) + configuration_tolerance(kernel, baseline)};
  return {median(plan_times), median(baseline_times), outputs};
}

}  // namespace ucudnn::cpu
