#include "shim/legacy_call_cache.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace ucudnn::shim {

namespace {

struct Entry {
  bool valid = false;
  LegacyCall call{};
  std::uint64_t epoch = 0;
  cudnn::DescriptorSnapshot snapshot{};
  std::shared_ptr<const cudnn::PlanExecutor> plan;
};

// Direct-mapped: a training step makes a few hundred distinct calls per thread.
constexpr std::size_t kEntries = 128;
thread_local std::array<Entry, kEntries> cache;

std::size_t slot_of(const LegacyCall& call, const cudnn::DescriptorSnapshot& snapshot) {
  // FNV-style mixing over the snapshot a word at a time (a few hundred bytes on every call),
  // then the call's scalars.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&snapshot);
  std::size_t i = 0;
  for (; i + sizeof(std::uint64_t) <= sizeof snapshot; i += sizeof(std::uint64_t)) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, sizeof word);
    h = (h ^ word) * 0x100000001b3ULL;
  }
  for (; i < sizeof snapshot; ++i) h = (h ^ bytes[i]) * 0x100000001b3ULL;
  for (std::uint64_t v :
       {static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(call.handle)),
        static_cast<std::uint64_t>(call.operation), static_cast<std::uint64_t>(call.layer),
        static_cast<std::uint64_t>(call.deterministic_only),
        static_cast<std::uint64_t>(call.workspace_bytes), static_cast<std::uint64_t>(call.math)})
    h = (h ^ v) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h ^ (h >> 29)) % kEntries;
}

}  // namespace

const cudnn::PlanExecutor* LegacyCallCache::find(const LegacyCall& call,
                                                 const cudnn::DescriptorSnapshot& snapshot,
                                                 std::uint64_t epoch) {
  const Entry& entry = cache[slot_of(call, snapshot)];
  if (!entry.valid || entry.epoch != epoch || !(entry.call == call) ||
      !cudnn::same_snapshot(entry.snapshot, snapshot))
    return nullptr;
  return entry.plan.get();
}

void LegacyCallCache::remember(const LegacyCall& call, const cudnn::DescriptorSnapshot& snapshot,
                               std::uint64_t epoch,
                               std::shared_ptr<const cudnn::PlanExecutor> plan) {
  Entry& entry = cache[slot_of(call, snapshot)];
  entry.valid = true;
  entry.call = call;
  entry.epoch = epoch;
  entry.snapshot = snapshot;
  entry.plan = std::move(plan);
}

}  // namespace ucudnn::shim
