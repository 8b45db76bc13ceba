#include "cudnn/runtime_call_counts.h"

#include <atomic>

namespace ucudnn::cudnn {

namespace {

struct AtomicCounts {
  std::atomic<std::uint64_t> allocations{0}, frees{0}, synchronizations{0};
  RuntimeCallCounts load() const {
    return {allocations.load(std::memory_order_relaxed), frees.load(std::memory_order_relaxed),
            synchronizations.load(std::memory_order_relaxed)};
  }
};

// Plain atomics with static storage: constant-initialized, so usable from any constructor or
// destructor of the application's, and never destroyed.
AtomicCounts measuring_counts, other_counts;
thread_local int measuring_depth = 0;

}  // namespace

std::string RuntimeCallCounts::to_string() const {
  return std::to_string(allocations) + " allocations, " + std::to_string(frees) + " frees, " +
         std::to_string(synchronizations) + " synchronizations";
}

void count_runtime_call(RuntimeCall call) {
  AtomicCounts& counts = measuring_depth > 0 ? measuring_counts : other_counts;
  switch (call) {
    case RuntimeCall::kAllocation:
      counts.allocations.fetch_add(1, std::memory_order_relaxed);
      break;
    case RuntimeCall::kFree:
      counts.frees.fetch_add(1, std::memory_order_relaxed);
      counts.synchronizations.fetch_add(1, std::memory_order_relaxed);
      break;
    case RuntimeCall::kSynchronization:
      counts.synchronizations.fetch_add(1, std::memory_order_relaxed);
      break;
  }
}

RuntimeCallTotals runtime_call_totals() {
  return {measuring_counts.load(), other_counts.load()};
}

MeasuringScope::MeasuringScope() {
  ++measuring_depth;
}
MeasuringScope::~MeasuringScope() {
  --measuring_depth;
}

}  // namespace ucudnn::cudnn
