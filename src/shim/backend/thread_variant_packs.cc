#include "shim/backend/thread_variant_packs.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

namespace ucudnn::shim::backend {

namespace {

// More live packs than this on one thread (an application that never destroys them): the
// oldest is forgotten, and reads as unknown.
constexpr std::size_t kMaxLivePacks = 64;

std::atomic<std::uint64_t> foreign_destructions{0};

// The live packs this thread created. Its capacity stays: no allocation per execution.
thread_local std::vector<VariantPack> packs;

VariantPack* mine(cudnnBackendDescriptor_t descriptor) {
  for (auto& pack : packs)
    if (pack.descriptor == descriptor) return &pack;
  return nullptr;
}

template <typename T, std::size_t N>
bool copy(std::array<T, N>& into, int& count, std::int64_t given, const void* values) {
  if (given < 0 || given > static_cast<std::int64_t>(N) || (given > 0 && !values)) return false;
  count = static_cast<int>(given);
  if (given > 0) std::memcpy(into.data(), values, static_cast<std::size_t>(given) * sizeof(T));
  return true;
}

}  // namespace

void* VariantPack::pointer(std::int64_t uid) const {
  for (int i = 0; i < uid_count && i < pointer_count; ++i)
    if (uids[static_cast<std::size_t>(i)] == uid) return pointers[static_cast<std::size_t>(i)];
  return nullptr;
}

void ThreadVariantPacks::created(cudnnBackendDescriptor_t descriptor) {
  VariantPack* pack = mine(descriptor);
  if (!pack) {
    if (packs.size() >= kMaxLivePacks) packs.erase(packs.begin());
    pack = &packs.emplace_back();
  }
  *pack = VariantPack{};
  pack->descriptor = descriptor;
  pack->generation = foreign_destructions.load(std::memory_order_acquire);
}

bool ThreadVariantPacks::set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                             cudnnBackendAttributeType_t type, std::int64_t count,
                             const void* values) {
  VariantPack* pack = mine(descriptor);
  if (!pack) return false;
  bool recorded = false;
  if (name == CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS && type == CUDNN_TYPE_INT64)
    recorded = copy(pack->uids, pack->uid_count, count, values);
  else if (name == CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS && type == CUDNN_TYPE_VOID_PTR)
    recorded = copy(pack->pointers, pack->pointer_count, count, values);
  else if (name == CUDNN_ATTR_VARIANT_PACK_WORKSPACE && type == CUDNN_TYPE_VOID_PTR && count == 1 &&
           values) {
    std::memcpy(&pack->workspace, values, sizeof(void*));
    recorded = true;
  } else if (name == CUDNN_ATTR_VARIANT_PACK_WORKSPACE && count == 0) {
    pack->workspace = nullptr;
    recorded = true;
  }
  // Anything else (intermediates, other types): ucudnn cannot tell what cuDNN made of it.
  if (!recorded) pack->readable = false;
  return true;
}

bool ThreadVariantPacks::finalized(cudnnBackendDescriptor_t descriptor) {
  VariantPack* pack = mine(descriptor);
  if (!pack) return false;
  pack->finalized = true;
  return true;
}

bool ThreadVariantPacks::initialized(cudnnBackendDescriptor_t descriptor) {
  VariantPack* pack = mine(descriptor);
  if (!pack) return false;
  created(descriptor);  // emptied, as cuDNN empties it
  return true;
}

bool ThreadVariantPacks::destroyed(cudnnBackendDescriptor_t descriptor) {
  auto found = std::find_if(packs.begin(), packs.end(),
                            [&](const VariantPack& pack) { return pack.descriptor == descriptor; });
  if (found == packs.end()) return false;
  // Swapped with the last: order means nothing, and nothing moves but one record.
  *found = packs.back();
  packs.pop_back();
  return true;
}

void ThreadVariantPacks::foreign_destruction() {
  foreign_destructions.fetch_add(1, std::memory_order_acq_rel);
}

const VariantPack* ThreadVariantPacks::find(cudnnBackendDescriptor_t descriptor) {
  const VariantPack* pack = mine(descriptor);
  if (!pack || !pack->finalized || !pack->readable ||
      pack->generation != foreign_destructions.load(std::memory_order_acquire))
    return nullptr;
  return pack;
}

}  // namespace ucudnn::shim::backend
