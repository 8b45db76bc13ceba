#include "shim/backend/thread_variant_packs.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <vector>

namespace ucudnn::shim::backend {

namespace {

// More live packs than this on one thread (an application that keeps them): the oldest is
// forgotten, and reads as unknown.
constexpr std::size_t kMaxLivePacks = 64;
// Packs whose creating thread ended before they were destroyed (built on a worker, executed
// and destroyed elsewhere), kept for the threads that use them: the oldest go beyond this.
constexpr std::size_t kMaxOrphanPacks = 256;

// One thread's live packs. Its owner locks it on every call, uncontended unless another thread
// reaches a pack this one created. The capacity stays: no allocation per execution.
struct PackList {
  std::mutex mutex;
  std::vector<VariantPack> packs;
};

// Every live thread's list, and the packs of threads that ended. Lock order: this mutex, then
// a list's. Every record of a live pack is in one of them, so a destruction seen anywhere
// removes it: no record outlives its descriptor, and none is stale.
struct AllThreads {
  std::mutex mutex;
  std::vector<PackList*> lists;
  std::vector<VariantPack> orphans;
};

// Built in place, without allocating (nothing to throw into cuDNN's callers), and never
// destroyed: threads end, and hand their packs over, after exit's static destructors.
AllThreads& all_threads() {
  alignas(AllThreads) static unsigned char storage[sizeof(AllThreads)];
  static AllThreads* all = new (storage) AllThreads;
  return *all;
}

// Set as this thread's list goes: calls made later in the thread's end (another thread-local's
// destructor destroying descriptors) find none of its own. Trivially destructible, so valid to
// the last.
thread_local bool thread_ended = false;

// This thread's list, among every thread's while the thread lives.
class ThisThread {
 public:
  ThisThread() noexcept {
    try {
      list_.packs.reserve(kMaxLivePacks);
      AllThreads& all = all_threads();
      std::lock_guard lock(all.mutex);
      all.orphans.reserve(kMaxOrphanPacks);
      all.lists.push_back(&list_);
      registered_ = true;
    } catch (const std::exception&) {
      // No memory: this thread records no pack (each reads as unknown), since the others could
      // not see its records to remove them.
    }
  }
  ~ThisThread() {
    thread_ended = true;
    if (!registered_) return;
    AllThreads& all = all_threads();
    std::lock_guard lock(all.mutex);
    all.lists.erase(std::find(all.lists.begin(), all.lists.end(), &list_));
    std::lock_guard own(list_.mutex);
    const std::size_t kept = std::min(list_.packs.size(), kMaxOrphanPacks);
    const std::size_t room = kMaxOrphanPacks - kept;
    if (all.orphans.size() > room)
      all.orphans.erase(all.orphans.begin(), all.orphans.begin() + static_cast<std::ptrdiff_t>(
                                                                       all.orphans.size() - room));
    // Within the capacity reserved: nothing allocated.
    all.orphans.insert(all.orphans.end(), list_.packs.end() - static_cast<std::ptrdiff_t>(kept),
                       list_.packs.end());
  }
  // Null where the thread could not register.
  PackList* list() { return registered_ ? &list_ : nullptr; }

 private:
  PackList list_;
  bool registered_ = false;
};

thread_local ThisThread this_thread;

// This thread's list; null once the thread is ending, or where it could not register.
PackList* own_list() {
  return thread_ended ? nullptr : this_thread.list();
}

VariantPack* in(std::vector<VariantPack>& packs, cudnnBackendDescriptor_t descriptor) {
  for (auto& pack : packs)
    if (pack.descriptor == descriptor) return &pack;
  return nullptr;
}

// `act` on this thread's records, under their lock; false where there are none (the thread is
// ending, or could not register) or `act` found nothing to act on.
template <typename Act>
bool in_own_list(Act act) {
  PackList* list = own_list();
  if (!list) return false;
  std::lock_guard lock(list->mutex);
  return act(list->packs);
}

// `act` on the records of every other live thread, then on those of the threads that ended,
// each under its lock, until it acts on one.
template <typename Act>
bool in_other_lists(Act act) {
  const PackList* own = own_list();
  AllThreads& all = all_threads();
  std::lock_guard lock(all.mutex);
  for (PackList* list : all.lists) {
    if (list == own) continue;
    std::lock_guard held(list->mutex);
    if (act(list->packs)) return true;
  }
  return act(all.orphans);
}

// An act that applies `change` to the record of `descriptor`, where the records hold one.
template <typename Change>
auto changing(cudnnBackendDescriptor_t descriptor, Change change) {
  return [descriptor, change](std::vector<VariantPack>& packs) {
    VariantPack* pack = in(packs, descriptor);
    if (!pack) return false;
    change(*pack);
    return true;
  };
}

// `change` applied to this thread's record of `descriptor`; false where there is none.
template <typename Change>
bool on_own(cudnnBackendDescriptor_t descriptor, Change change) {
  return in_own_list(changing(descriptor, change));
}

// `change` applied to the record of `descriptor` that another thread created, live or ended;
// false where there is none.
template <typename Change>
bool on_others(cudnnBackendDescriptor_t descriptor, Change change) {
  return in_other_lists(changing(descriptor, change));
}

VariantPack fresh(cudnnBackendDescriptor_t descriptor) {
  VariantPack pack;
  pack.descriptor = descriptor;
  return pack;
}

template <typename T, std::size_t N>
bool copy(std::array<T, N>& into, int& count, std::int64_t given, const void* values) {
  if (given < 0 || given > static_cast<std::int64_t>(N) || (given > 0 && !values)) return false;
  count = static_cast<int>(given);
  if (given > 0) std::memcpy(into.data(), values, static_cast<std::size_t>(given) * sizeof(T));
  return true;
}

// cudnnBackendSetAttribute, as cuDNN accepted it.
void record(VariantPack& pack, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
            std::int64_t count, const void* values) {
  bool recorded = false;
  if (name == CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS && type == CUDNN_TYPE_INT64)
    recorded = copy(pack.uids, pack.uid_count, count, values);
  else if (name == CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS && type == CUDNN_TYPE_VOID_PTR)
    recorded = copy(pack.pointers, pack.pointer_count, count, values);
  else if (name == CUDNN_ATTR_VARIANT_PACK_WORKSPACE && type == CUDNN_TYPE_VOID_PTR && count == 1 &&
           values) {
    std::memcpy(&pack.workspace, values, sizeof(void*));
    recorded = true;
  } else if (name == CUDNN_ATTR_VARIANT_PACK_WORKSPACE && count == 0) {
    pack.workspace = nullptr;
    recorded = true;
  }
  // Anything else (intermediates, other types): ucudnn cannot tell what cuDNN made of it.
  if (!recorded) pack.readable = false;
}

void finalize(VariantPack& pack) {
  pack.finalized = true;
}

// Emptied, as cuDNN's cudnnBackendInitialize empties it.
void empty(VariantPack& pack) {
  pack = fresh(pack.descriptor);
}

// The record of `descriptor` in `packs` removed; whether there was one. Swapped with the last:
// order means nothing, and nothing moves but one record.
bool remove(std::vector<VariantPack>& packs, cudnnBackendDescriptor_t descriptor) {
  VariantPack* pack = in(packs, descriptor);
  if (!pack) return false;
  *pack = packs.back();
  packs.pop_back();
  return true;
}

}  // namespace

void* VariantPack::pointer(std::int64_t uid) const {
  for (int i = 0; i < uid_count && i < pointer_count; ++i)
    if (uids[static_cast<std::size_t>(i)] == uid) return pointers[static_cast<std::size_t>(i)];
  return nullptr;
}

void ThreadVariantPacks::created(cudnnBackendDescriptor_t descriptor) {
  PackList* list = own_list();
  if (!list) return;  // the pack reads as unknown
  std::lock_guard lock(list->mutex);
  VariantPack* pack = in(list->packs, descriptor);
  if (!pack) {
    if (list->packs.size() >= kMaxLivePacks) list->packs.erase(list->packs.begin());
    pack = &list->packs.emplace_back();
  }
  *pack = fresh(descriptor);
}

bool ThreadVariantPacks::set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                             cudnnBackendAttributeType_t type, std::int64_t count,
                             const void* values) {
  return on_own(descriptor, [&](VariantPack& pack) { record(pack, name, type, count, values); });
}

bool ThreadVariantPacks::set_elsewhere(cudnnBackendDescriptor_t descriptor,
                                       cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, std::int64_t count,
                                       const void* values) {
  return on_others(descriptor, [&](VariantPack& pack) { record(pack, name, type, count, values); });
}

bool ThreadVariantPacks::finalized(cudnnBackendDescriptor_t descriptor) {
  return on_own(descriptor, finalize);
}

bool ThreadVariantPacks::finalized_elsewhere(cudnnBackendDescriptor_t descriptor) {
  return on_others(descriptor, finalize);
}

bool ThreadVariantPacks::initialized(cudnnBackendDescriptor_t descriptor) {
  return on_own(descriptor, empty);
}

bool ThreadVariantPacks::initialized_elsewhere(cudnnBackendDescriptor_t descriptor) {
  return on_others(descriptor, empty);
}

bool ThreadVariantPacks::destroyed(cudnnBackendDescriptor_t descriptor) {
  return in_own_list(
      [descriptor](std::vector<VariantPack>& packs) { return remove(packs, descriptor); });
}

bool ThreadVariantPacks::destroyed_elsewhere(cudnnBackendDescriptor_t descriptor) {
  return in_other_lists(
      [descriptor](std::vector<VariantPack>& packs) { return remove(packs, descriptor); });
}

bool ThreadVariantPacks::find(cudnnBackendDescriptor_t descriptor, VariantPack& into) {
  auto take = [&](VariantPack& pack) { into = pack; };
  return (on_own(descriptor, take) || on_others(descriptor, take)) && into.finalized &&
         into.readable;
}

}  // namespace ucudnn::shim::backend
