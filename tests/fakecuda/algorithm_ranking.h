#pragma once
// The answer of cudnnGet*_v7, cudnnFind* and cudnnFind*Ex on the doubles, from the cost
// model: every algorithm of the operation, the ones that run first (fastest modeled time
// first, enum order on ties), then those that need more than the Find*Ex workspace, then
// those the model does not support.
#include <cudnn.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "core/kernel_key.h"

namespace ucudnn::fakecuda {

struct RankedAlgorithm {
  int algorithm = 0;
  cudnnStatus_t status = CUDNN_STATUS_NOT_SUPPORTED;
  float time_ms = -1;      // the modeled time when status is SUCCESS, else -1
  std::size_t memory = 0;  // the modeled workspace; 0 when unsupported
  bool deterministic = true;
};

// workspace_limit: the Find*Ex workspace; algorithms needing more get NOT_SUPPORTED but
// keep their memory, so the caller can see what they would need.
std::vector<RankedAlgorithm> rank_algorithms(const KernelKey& kernel,
                                             std::optional<std::size_t> workspace_limit);

// Copies the first min(requested, ranked.size()) entries into cuDNN's perf structs.
template <typename Perf>
void fill_perf_results(const std::vector<RankedAlgorithm>& ranked, cudnnMathType_t math_type,
                       int requested, int* returned, Perf* results) {
  const int count = std::min(requested, static_cast<int>(ranked.size()));
  for (int i = 0; i < count; ++i) {
    Perf perf{};
    perf.algo = static_cast<decltype(perf.algo)>(ranked[i].algorithm);
    perf.status = ranked[i].status;
    perf.time = ranked[i].time_ms;
    perf.memory = ranked[i].memory;
    perf.determinism = ranked[i].deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
    perf.mathType = math_type;
    results[i] = perf;
  }
  *returned = count;
}

}  // namespace ucudnn::fakecuda
