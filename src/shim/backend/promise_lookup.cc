#include "shim/backend/promise_lookup.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>

namespace ucudnn::shim::backend {

namespace {

struct Entry {
  cudnnBackendDescriptor_t plan = nullptr;
  std::uint64_t epoch = 0;
  bool valid = false;
  std::shared_ptr<const PlanPromise> promise;
};

// Direct-mapped by the plan's address: a training step executes a few hundred plans.
constexpr std::size_t kEntries = 256;
thread_local std::array<Entry, kEntries> cache;

}  // namespace

const PlanPromise* promise_for_execution(const DescriptorTable& table,
                                         cudnnBackendDescriptor_t plan) {
  const std::uint64_t epoch = table.epoch();
  // Descriptors are heap objects: the low bits say little.
  const std::size_t slot = (std::hash<const void*>{}(plan) >> 4) % kEntries;
  Entry& entry = cache[slot];
  if (!entry.valid || entry.plan != plan || entry.epoch != epoch) {
    // The epoch read before the lookup: a change during it makes the next lookup look again.
    entry.promise = table.execution_plan_promise(plan);
    entry.plan = plan;
    entry.epoch = epoch;
    entry.valid = true;
  }
  return entry.promise.get();
}

}  // namespace ucudnn::shim::backend
