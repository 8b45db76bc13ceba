#include "shim/kernel_planner.h"

#include "core/plan_validation.h"
#include "core/stored_benchmarker.h"
#include "core/workspace_reuse.h"
#include "cudnn/algorithms.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/current_device.h"
#include "cudnn/micro_batch_descriptors.h"
#include "shim/log.h"

namespace ucudnn::shim {

namespace {

// Stands in for the device when measuring is not allowed: whatever the store lacks is
// unavailable now.
class NothingMeasured final : public Benchmarker {
 public:
  explicit NothingMeasured(Benchmarker& device) : device_(device) {}
  std::string backend_name() const override { return device_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return device_.fingerprint(); }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    return device_.algorithms(kernel);
  }
  std::optional<Measurement> benchmark(const KernelKey&, const std::string&,
                                       std::int64_t) override {
    throw MeasurementUnavailable("not measured: this call does not benchmark");
  }

 private:
  Benchmarker& device_;
};

MicroTable measure(const PlannerContext& context, const KernelKey& kernel, std::uint64_t limit) {
  std::lock_guard lock(context.device_mutex);
  const cudnn::CurrentDevice on(context.runtime, context.device);
  cudnn::CudnnBenchmarker device(context.api, context.runtime, context.handle, context.fingerprint,
                                 {1, context.benchmark_repeats, limit, context.caller});
  NothingMeasured nothing(device);
  StoredBenchmarker stored(context.may_measure ? static_cast<Benchmarker&>(device) : nothing,
                           context.store);
  MicroTable table = measure_micro_table(stored, kernel, context.policy, limit);
  if (context.may_measure && stored.measurements_taken() > 0)
    log(LogLevel::kInfo, "benchmarked " + std::to_string(stored.measurements_taken()) +
                             " (algorithm, micro-batch) pairs of " + kernel.to_string());
  return table;
}

PlanKey plan_key(const PlannerContext& context, const KernelKey& kernel, std::uint64_t limit) {
  return {context.fingerprint.to_string(), kernel.to_string(), std::string(name_of(context.policy)),
          limit, "WR"};
}

}  // namespace

std::optional<std::string> plan_problem(const PlannerContext& context, const KernelKey& kernel,
                                        const Configuration& plan, std::uint64_t limit) {
  return plan_validation_error(
      kernel, plan, "cudnn", limit,
      [&](const KernelKey& micro, const std::string& name) -> std::optional<std::uint64_t> {
        const auto algorithm = cudnn::algorithm_value(micro.operation, name);
        if (!algorithm) return std::nullopt;
        try {
          const cudnn::MicroBatchDescriptors d(context.api, micro.problem, micro.problem.batch());
          std::size_t bytes = 0;
          if (cudnn::workspace_size(context.api, context.handle, micro.operation,
                                    {d.x.get(), d.w.get(), d.convolution.get(), d.y.get()},
                                    *algorithm, &bytes) != CUDNN_STATUS_SUCCESS)
            return std::nullopt;
          return bytes;
        } catch (const std::exception&) {
          return std::nullopt;
        }
      });
}

Expected<Configuration> plan_reuse(const PlannerContext& context, const KernelKey& kernel,
                                   std::uint64_t limit) {
  const PlanKey key = plan_key(context, kernel, limit);
  if (auto stored = context.store.find_plan(key); stored && stored->size() == 1) {
    if (auto problem = plan_problem(context, kernel, stored->front(), limit))
      warn_once("invalid-plan:" + key.subject,
                "discarding an invalid stored plan for " + kernel.to_string() + ": " + *problem);
    else
      return stored->front();
  }
  const MicroTable table = measure(context, kernel, limit);
  if (!table.complete && !context.may_measure)
    return Error{"not every measurement of " + kernel.to_string() + " is stored yet"};
  auto plan = plan_workspace_reuse(table);
  // A plan made while some measurement was unavailable serves this process only.
  if (plan && table.complete) context.store.put_plan(key, {*plan}, limits_answered(table, *plan));
  return plan;
}

Expected<ParetoFront> desirable_set(const PlannerContext& context, const KernelKey& kernel,
                                    std::uint64_t limit) {
  ParetoFront front = desirable_configurations(measure(context, kernel, limit));
  if (front.empty())
    return Error{"no configuration of " + kernel.to_string() + " fits " + std::to_string(limit) +
                 " bytes"};
  return front;
}

}  // namespace ucudnn::shim
