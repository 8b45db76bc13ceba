#pragma once
// The host's side of the CPU/GPU hybrid as the shim sees it: a planner device for the host's
// share and a way to run a planned configuration on host tensors. The CPU backend implements
// it in a plugin the shim loads only when hybrid is asked for, so that an application under
// the shim never maps the CPU backend's libraries (BLAS, oneDNN, OpenMP) otherwise.
#include <cstddef>
#include <cstdint>

#include "core/benchmarker.h"
#include "core/configuration.h"

namespace ucudnn {

class HostBackend {
 public:
  virtual ~HostBackend() = default;

  // Measures the host's solvers; safe to call from several threads (measurements are taken
  // one at a time).
  virtual Benchmarker& benchmarker() = 0;
  // The host workspace `configuration` needs on `kernel` (micro-batches at the kernel's
  // batch). Throws std::invalid_argument when it names a solver the host lacks or one that
  // does not apply: what validates a stored plan's host share.
  virtual std::size_t workspace_bytes(const KernelKey& kernel,
                                      const Configuration& configuration) = 0;
  // out = alpha * op(inputs) + beta * out on host tensors with the kernel's strides, as
  // cpu::run_configuration. Throws on failure.
  struct Tensors {
    void* x;
    void* w;
    void* y;
  };
  virtual void run(const KernelKey& kernel, const Configuration& configuration,
                   const Tensors& tensors, double alpha, double beta, void* workspace,
                   std::size_t workspace_bytes) = 0;
  // The same result by the float64 reference (slow, needs no workspace): what the host's
  // share falls back to when `run` fails after the device has been committed to the split.
  virtual void run_reference(const KernelKey& kernel, const Tensors& tensors, double alpha,
                             double beta) = 0;
};

// The plugin's one exported function: its process-wide backend, never destroyed.
inline constexpr const char* kHostBackendEntryPoint = "ucudnn_host_backend_v1";
using HostBackendEntryPoint = HostBackend* (*)();

}  // namespace ucudnn
