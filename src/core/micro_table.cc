#include "core/micro_table.h"

#include <tuple>

namespace ucudnn {

MicroTable measure_micro_table(Benchmarker& benchmarker, const KernelKey& kernel,
                               BatchSizePolicy policy, std::uint64_t workspace_limit) {
  MicroTable table;
  table.batch = kernel.problem.batch();
  table.sizes = micro_batch_sizes(policy, table.batch);
  const auto algorithms = benchmarker.algorithms(kernel);
  const auto backend = benchmarker.backend_name();
  for (auto size : table.sizes) {
    std::vector<MicroConfiguration> fitting;
    for (const auto& algorithm : algorithms) {
      auto measured = benchmarker.benchmark(kernel, algorithm, size);
      if (!measured || measured->workspace_bytes > workspace_limit) continue;
      fitting.push_back({backend, algorithm, size, measured->time_ms, measured->workspace_bytes});
    }
    table.candidates.push_back(std::move(fitting));
  }
  return table;
}

MicroTable restrict_to_limit(const MicroTable& table, std::uint64_t limit) {
  MicroTable result = table;
  for (auto& row : result.candidates)
    std::erase_if(row, [&](const MicroConfiguration& m) { return m.workspace_bytes > limit; });
  return result;
}

const MicroConfiguration* fastest(const std::vector<MicroConfiguration>& candidates) {
  const MicroConfiguration* best = nullptr;
  for (const auto& c : candidates) {
    if (!best || std::tie(c.time_ms, c.workspace_bytes, c.algorithm) <
                     std::tie(best->time_ms, best->workspace_bytes, best->algorithm))
      best = &c;
  }
  return best;
}

}  // namespace ucudnn
