#pragma once
// A Benchmarker answering from a fixed table, for planner tests.
#include <map>
#include <utility>

#include "core/benchmarker.h"

namespace ucudnn::testing {

class TableBenchmarker final : public Benchmarker {
 public:
  explicit TableBenchmarker(std::vector<std::string> algorithms)
      : algorithms_(std::move(algorithms)) {}

  void set(const std::string& algorithm, std::int64_t micro_batch, double time_ms,
           std::uint64_t workspace) {
    table_[{algorithm, micro_batch}] = Measurement{time_ms, workspace};
  }

  std::string backend_name() const override { return "table"; }
  DeviceFingerprint fingerprint() const override { return {{{"kind", "table"}}}; }
  std::vector<std::string> algorithms(const KernelKey&) override { return algorithms_; }
  std::optional<Measurement> benchmark(const KernelKey&, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    ++calls;
    auto found = table_.find({algorithm, micro_batch});
    if (found == table_.end()) return std::nullopt;
    return found->second;
  }

  int calls = 0;

 private:
  std::vector<std::string> algorithms_;
  std::map<std::pair<std::string, std::int64_t>, Measurement> table_;
};

// A kernel whose only role is to carry the batch size.
inline KernelKey kernel_with_batch(std::int64_t batch) {
  return KernelKey{Operation::kForward, make_conv2d_problem({batch, 8, 16, 16, 8, 3, 3, 1, 1})};
}

}  // namespace ucudnn::testing
