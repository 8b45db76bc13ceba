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

// The newest plan answers its whole range: ranges of one subject overlap only where plans were
// made from different measurements (measured again, merged from another database), and the
// older one was the best by measurements that the newer ones replaced. So no two ranges of a
// subject overlap on a shelf.
class PlanShelf {
 public:
  // Takes the plans of the subject whose ranges overlap `valid` away.
  void put(const PlanKey& key, std::vector<Configuration> plan, const LimitRange& valid);
  // The same, unless a plan of the subject over some limit of `valid` is there (put first
  // what is newest).
  void put_if_absent(const PlanKey& key, std::vector<Configuration> plan, const LimitRange& valid);
  // The plan whose range contains key.workspace_limit.
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
