#include "plan_executor.h"

#include <algorithm>
#include <stdexcept>

#include "host_tensors.h"
#include "solver_registry.h"

namespace ucudnn::cpu {

namespace {
const Solver& solver_for(const KernelKey& micro, const MicroConfiguration& m) {
  const Solver* solver = find_solver(m.algorithm);
  if (!solver) throw std::invalid_argument("unknown CPU solver '" + m.algorithm + "'");
  if (!solver->applies(micro))
    throw std::invalid_argument("CPU solver '" + m.algorithm + "' does not apply to " +
                                micro.to_string());
  return *solver;
}
}  // namespace

std::size_t configuration_workspace_bytes(const KernelKey& kernel,
                                          const Configuration& configuration) {
  std::size_t largest = 0;
  for (const auto& m : configuration.micro) {
    const KernelKey micro = kernel.with_batch(m.batch);
    largest = std::max(largest, solver_for(micro, m).workspace_bytes(micro));
  }
  return largest;
}

double configuration_tolerance(const KernelKey& kernel, const Configuration& configuration) {
  double tolerance = 0;
  for (const auto& m : configuration.micro) {
    const KernelKey micro = kernel.with_batch(m.batch);
    tolerance = std::max(tolerance, solver_for(micro, m).tolerance(micro));
  }
  return tolerance;
}

void run_configuration(const KernelKey& kernel, const Configuration& configuration,
                       const Tensors& tensors, Scaling scaling, Workspace workspace,
                       ThreadPool& pool) {
  if (configuration.batch() != kernel.problem.batch())
    throw std::invalid_argument("configuration covers " + std::to_string(configuration.batch()) +
                                " images, the kernel has " +
                                std::to_string(kernel.problem.batch()));
  const std::size_t element = element_size(kernel.problem.data_type);
  const auto x_stride = static_cast<std::size_t>(kernel.problem.x.strides[0]) * element;
  const auto y_stride = static_cast<std::size_t>(kernel.problem.y.strides[0]) * element;
  std::int64_t offset = 0;
  bool first = true;
  for (const auto& m : configuration.micro) {
    if (m.batch <= 0)
      throw std::invalid_argument("micro-batch of " + std::to_string(m.batch) + " images");
    const KernelKey micro = kernel.with_batch(m.batch);
    const Solver& solver = solver_for(micro, m);
    if (solver.workspace_bytes(micro) > workspace.bytes)
      throw std::invalid_argument("CPU solver '" + m.algorithm +
                                  "' needs more workspace than given");
    Tensors slice = tensors;
    slice.x = static_cast<std::byte*>(tensors.x) + static_cast<std::size_t>(offset) * x_stride;
    slice.y = static_cast<std::byte*>(tensors.y) + static_cast<std::size_t>(offset) * y_stride;
    Scaling s = scaling;
    if (kernel.operation == Operation::kBackwardFilter && !first) s.beta = 1;
    solver.run(micro, slice, s, workspace, pool);
    offset += m.batch;
    first = false;
  }
}

}  // namespace ucudnn::cpu
