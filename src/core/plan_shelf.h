#pragma once
// Plans by (device, subject, policy, mode), each answering a range of limits: the in-memory
// form both stores share, so that the SQLite store's cache and MemoryStore answer a limit
// the same way.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/benchmark_store.h"

namespace ucudnn {

class PlanShelf {
 public:
  // Replaces a plan of the same subject starting at the same limit.
  void put(const PlanKey& key, std::vector<Configuration> plan, const LimitRange& valid);
  // The same, unless a plan of the same subject starting at the same limit is there.
  void put_if_absent(const PlanKey& key, std::vector<Configuration> plan, const LimitRange& valid);
  // The plan whose range contains key.workspace_limit; where stored ranges overlap (plans
  // made from different measurements), the one starting highest, which may use the most.
  std::optional<std::vector<Configuration>> find(const PlanKey& key) const;
  // BenchmarkStore::plan_subjects.
  std::vector<std::string> subjects(const PlanKey& key) const;
  void clear() { shelves_.clear(); }

 private:
  using Subject = std::tuple<std::string, std::string, std::string, std::string>;
  struct Entry {
    std::uint64_t below;
    std::vector<Configuration> plan;
  };
  std::map<Subject, std::map<std::uint64_t, Entry>> shelves_;  // by range start
};

}  // namespace ucudnn
