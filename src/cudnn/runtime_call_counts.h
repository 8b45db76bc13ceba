#pragma once
// ucudnn's own CUDA runtime calls that allocate, free or block the host, counted as they
// happen (cuda_runtime.cc counts through the table every ucudnn call goes through), apart for
// calls made while measuring and all others. The shim is meant to be invisible but for
// speed: outside measuring, a steady-state process should show no synchronization at all.
// Counted, as the runtime documents them: cudaMalloc and cudaHostAlloc allocate; cudaFree and
// cudaFreeHost free and synchronize the device; cudaStreamSynchronize and cudaEventSynchronize
// block the host.
#include <cstdint>
#include <string>

namespace ucudnn::cudnn {

struct RuntimeCallCounts {
  std::uint64_t allocations = 0, frees = 0, synchronizations = 0;
  // "2 allocations, 2 frees, 5 synchronizations"
  std::string to_string() const;
};

struct RuntimeCallTotals {
  RuntimeCallCounts measuring, other;
};

enum class RuntimeCall { kAllocation, kFree, kSynchronization };

void count_runtime_call(RuntimeCall call);
RuntimeCallTotals runtime_call_totals();

// While one lives, the calls its thread makes count as measuring (benchmarks, the host link
// probe, and the buffers they free when they end). Nests.
class MeasuringScope {
 public:
  MeasuringScope();
  ~MeasuringScope();
  MeasuringScope(const MeasuringScope&) = delete;
  MeasuringScope& operator=(const MeasuringScope&) = delete;
};

}  // namespace ucudnn::cudnn
