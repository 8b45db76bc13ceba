#pragma once
// A Benchmarker that answers from a cost model instead of a device: eight algorithms with
// the character of cuDNN's (GEMM-like ones slow with little workspace; FFT-like ones fast
// with workspace growing with the micro-batch; Winograd for 3x3 stride 1), efficiency that
// grows with the micro-batch and saturates, and a few percent of deterministic noise as in
// real measurements. For planner benchmarks on machines without a GPU.
#include "core/benchmarker.h"

namespace ucudnn::bench {

class SyntheticCostModel final : public Benchmarker {
 public:
  std::string backend_name() const override { return "synthetic"; }
  DeviceFingerprint fingerprint() const override { return {{{"kind", "synthetic"}}}; }
  std::vector<std::string> algorithms(const KernelKey& kernel) override;
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;
};

}  // namespace ucudnn::bench
