// The double's engines: for a graph of one convolution, engine i is the legacy algorithm i of
// the operation (cost_model.h: it applies where the model says, takes the model's time and
// workspace, and is nondeterministic where the algorithm is; the non-fused Winograd engines
// carry the TENSOR_CORE note, so that tests see a framework's choice of tensor cores honoured);
// for a forward convolution with an
// epilogue, one fused engine (IMPLICIT_PRECOMP_GEMM, then the pointwise operations).
#include <algorithm>

#include "backend_descriptors.h"
#include "cost_model.h"
#include "kernel_from_descriptors.h"

namespace ucudnn::fakecuda {

namespace {

constexpr int kFusedAlgorithm = 1;  // IMPLICIT_PRECOMP_GEMM

}  // namespace

std::optional<BackendEngine> engine_of(const BackendGraph& graph, std::int64_t index) {
  if (!graph.runnable || !graph.convolution || index < 0 || index >= graph.engine_count)
    return std::nullopt;
  const BackendConvolution& c = *graph.convolution;
  const KernelOrStatus k = kernel_from_descriptors(c.operation, &c.x, &c.w, &c.conv, &c.y);
  if (k.status != CUDNN_STATUS_SUCCESS) return std::nullopt;
  const int algorithm = graph.epilogue.empty() ? static_cast<int>(index) : kFusedAlgorithm;
  const Modeled m = model(k.kernel, algorithm);
  if (!m.supported) return std::nullopt;
  const AlgorithmModel* a = algorithm_model(c.operation, algorithm);
  return BackendEngine{index,
                       algorithm,
                       a->deterministic,
                       a->family == Family::kWinogradNonfused,
                       m.workspace_bytes,
                       m.time_ms};
}

std::vector<BackendEngine> runnable_engines(const BackendGraph& graph) {
  std::vector<BackendEngine> engines;
  for (std::int64_t i = 0; i < graph.engine_count; ++i)
    if (auto engine = engine_of(graph, i)) engines.push_back(*engine);
  std::stable_sort(engines.begin(), engines.end(),
                   [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  return engines;
}

}  // namespace ucudnn::fakecuda
