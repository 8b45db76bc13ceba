#include "algorithm_ranking.h"

#include "cost_model.h"

namespace ucudnn::fakecuda {

std::vector<RankedAlgorithm> rank_algorithms(const KernelKey& kernel,
                                             std::optional<std::size_t> workspace_limit) {
  struct Entry {
    RankedAlgorithm ranked;
    int group;  // 0 runs, 1 does not fit, 2 unsupported
    double time_ms;
  };
  std::vector<Entry> entries;
  for (int algorithm = 0; algorithm < algorithm_count(kernel.operation); ++algorithm) {
    const Modeled m = model(kernel, algorithm);
    Entry entry{{algorithm, CUDNN_STATUS_NOT_SUPPORTED, -1, 0,
                 algorithm_model(kernel.operation, algorithm)->deterministic},
                2,
                0};
    if (m.supported) {
      entry.ranked.memory = static_cast<std::size_t>(m.workspace_bytes);
      entry.time_ms = m.time_ms;
      if (!workspace_limit || m.workspace_bytes <= *workspace_limit) {
        entry.ranked.status = CUDNN_STATUS_SUCCESS;
        entry.ranked.time_ms = static_cast<float>(m.time_ms);
        entry.group = 0;
      } else {
        entry.group = 1;
      }
    }
    entries.push_back(entry);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.group != b.group ? a.group < b.group : a.time_ms < b.time_ms;
  });
  std::vector<RankedAlgorithm> result;
  for (const Entry& entry : entries) result.push_back(entry.ranked);
  return result;
}

}  // namespace ucudnn::fakecuda
