#pragma once
// One CPU convolution algorithm (MIOpen-style solver): whether it applies to a kernel, how
// much workspace it needs, and how to run it. The kernel's batch is the batch of the call
// (a micro-batch when the planner splits). Solvers are stateless and thread-compatible.
#include <cstddef>
#include <string_view>

#include "core/kernel_key.h"

namespace ucudnn::cpu {

class ThreadPool;

// The tensors of one call, element type problem.data_type (float; double where a solver
// says so). Forward reads x, w and writes y. BackwardData reads y (dy) and w and writes x
// (dx). BackwardFilter reads x and y (dy) and writes w (dw). Strides are the problem's.
struct Tensors {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

// out = alpha * op(inputs) + beta * out, as cuDNN. With beta == 0 the output is never
// read, so NaN already there is overwritten.
struct Scaling {
  double alpha = 1;
  double beta = 0;
};

struct Workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

class Solver {
 public:
  virtual ~Solver() = default;

  virtual std::string_view name() const = 0;  // stable, e.g. "LOWERING_BATCHED"
  virtual bool applies(const KernelKey& kernel) const = 0;
  virtual std::size_t workspace_bytes(const KernelKey& kernel) const = 0;
  // Preconditions: applies(kernel); workspace.bytes >= workspace_bytes(kernel). Uses at
  // most workspace_bytes(kernel) bytes of the workspace. Throws std::runtime_error when a
  // library it calls fails.
  virtual void run(const KernelKey& kernel, const Tensors& tensors, Scaling scaling,
                   Workspace workspace, ThreadPool& pool) const = 0;

  // The stated bound on the normwise relative error of the output against the exact result
  // (random inputs in [-1, 1]): what the solver tests hold each solver to, and what `ucudnn
  // bench` allows between a plan's output and its undivided baseline's. A float32 direct sum
  // by default; solvers whose transforms lose digits state more.
  virtual double tolerance(const KernelKey& kernel) const {
    return kernel.problem.data_type == DataType::kDouble ? kDoubleTolerance : kFloatTolerance;
  }
  static constexpr double kFloatTolerance = 1e-5;
  static constexpr double kDoubleTolerance = 1e-12;
};

}  // namespace ucudnn::cpu
