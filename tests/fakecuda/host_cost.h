#pragma once
// What the real cuDNN 9 charges the host per call, charged by the double on request, so that a
// shim that makes more or costlier calls than the application would shows on machines without a
// GPU (bench/shim_overhead_benchmark.cc). FAKECUDA_HOST_COST_US="legacy=L,execute=E,compile=C"
// (any of them, in any order): each legacy convolution call (cudnnConvolutionForward/
// BackwardData/BackwardFilter) busy-waits L microseconds, each cudnnBackendExecute E, and each
// Finalize of an execution plan whose engine is runtime-compiled (FAKECUDA_ENGINE_NOTES) C, as
// cuDNN compiles its kernels there; unset, nothing is charged. Read once per process.
namespace ucudnn::fakecuda {

enum class HostCost { kLegacyConvolution, kPlanExecution, kPlanCompilation };

void charge_host_cost(HostCost call);

}  // namespace ucudnn::fakecuda
