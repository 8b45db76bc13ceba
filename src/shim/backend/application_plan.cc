#include "shim/backend/application_plan.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cudnn/backend_api.h"
#include "cudnn/configuration_timer.h"
#include "cudnn/current_device.h"
#include "cudnn/execution_plan_timer.h"
#include "cudnn/measuring_account.h"
#include "cudnn/real_call_clock.h"
#include "cudnn/runtime_call_counts.h"
#include "shim/log.h"
#include "shim/registry.h"
#include "shim/settings.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim::backend {

namespace {

// ucudnn's plan must beat the application's on the GPU by this share of the time, and by what
// issuing it costs the host beyond executing the application's finalized plan (each micro-batch
// is one more plan execution; a plan among the legacy algorithms runs legacy calls, which cuDNN 9
// charges the host 21-31 us against a few for a plan execution on the H100 and H200 machines
// measured, 2026-11), so that a framework running ahead of the GPU notices no difference either.
constexpr double kRequiredShare = 0.03;

}  // namespace

bool application_plan_wins(cudnnBackendDescriptor_t plan_descriptor, const GraphConvolution& c,
                           const cudnn::PlanExecutor& ours, bool deterministic_only,
                           std::uint64_t engine_bytes) {
  auto& registry = Registry::instance();
  auto state = registry.state(c.handle);
  const Settings& settings = process_settings();
  const auto& p = c.problem;
  const std::size_t element = element_size(p.data_type);
  const std::vector<cudnn::PlanTensor> tensors{{c.x_uid, p.x.span_elements() * element},
                                               {c.w_uid, p.w.span_elements() * element},
                                               {c.y_uid, p.y.span_elements() * element}};
  const std::string kernel =
      ours.kernel().to_string() + (deterministic_only ? " (deterministic engines only)" : "");
  // The convolution, whatever numerics an engine of it uses: an autotuner compares them all.
  KernelKey convolution = ours.kernel();
  convolution.problem.math_type = MathType::kDefault;
  std::optional<cudnn::PlanTiming> theirs, mine;
  std::optional<double> fastest;
  {
    auto& device = registry.device(state->device);
    std::lock_guard lock(device.benchmark_mutex);
    const cudnn::CurrentDevice on(cudnn::cuda_runtime(), state->device);
    const cudnn::MeasuringScope measuring;
    const auto& runtime = cudnn::cuda_runtime();
    const std::uint64_t start = cudnn::RealCallClock::now();
    // The device's gate setting: an autotuning framework has hundreds of plans compared.
    theirs = cudnn::time_execution_plan(cudnn::backend_api(), cudnn::cudnn_api(), runtime, c.handle,
                                        plan_descriptor, tensors, engine_bytes,
                                        settings.benchmark_repeats, &device.gating);
    mine = cudnn::time_plan(runtime, cudnn::cudnn_api(), c.handle, ours, settings.benchmark_repeats,
                            &device.gating);
    if (theirs && mine)
      cudnn::count_compared_plan(cudnn::RealCallClock::now() - start,
                                 theirs->ungated > 0 || mine->ungated > 0,
                                 theirs->gates_timed_out + mine->gates_timed_out);
    double& best = device.fastest_application_plan_ms[convolution.to_string()];
    if (theirs && (best <= 0 || theirs->gpu_ms < best)) best = theirs->gpu_ms;
    if (best > 0) fastest = best;
  }
  if (!fastest || !mine) {
    log(LogLevel::kInfo, "graph API " + kernel + ": the plans could not be compared (no memory " +
                             "to run them?): cuDNN runs the application's plan");
    return true;
  }
  const double host_cost = mine->host_ms - (theirs ? theirs->host_ms : 0);
  const double required = std::max(*fastest * kRequiredShare, host_cost);
  const bool wins = mine->gpu_ms > *fastest - required;
  char numbers[256];
  std::snprintf(numbers, sizeof numbers,
                ": the application's plan %.6f ms, %.3f us host (workspace %s), its fastest for "
                "the kernel %.6f ms; ucudnn's %.6f ms, %.3f us host (",
                theirs ? theirs->gpu_ms : 0.0, theirs ? theirs->host_ms * 1000 : 0.0,
                format_byte_size(engine_bytes).c_str(), *fastest, mine->gpu_ms,
                mine->host_ms * 1000);
  log(LogLevel::kInfo, std::string("graph API ") + std::string(name_of(c.operation)) + " " +
                           kernel + numbers + ours.configuration().to_string() + "): " +
                           (wins ? "cuDNN runs the application's plan" : "ucudnn runs its plan"));
  return wins;
}

}  // namespace ucudnn::shim::backend
