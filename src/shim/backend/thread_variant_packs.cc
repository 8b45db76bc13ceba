#include "shim/backend/thread_variant_packs.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <vector>

namespace ucudnn::shim::backend {

namespace {

// More live packs than this on one thread (an application that never destroys them): the
// oldest is forgotten, and reads as unknown.
constexpr std::size_t kMaxLivePacks = 64;
// Packs whose creating thread ended before they were destroyed (built on a worker, executed
// and destroyed elsewhere), kept for the threads that use them: the oldest go beyond this.
constexpr std::size_t kMaxOrphanPacks = 256;

std::atomic<std::uint64_t> foreign_destructions{0};

std::uint64_t generation_now() {
  return foreign_destructions.load(std::memory_order_acquire);
}

// One thread's live packs. Its owner locks it on every call, uncontended unless another thread
// reaches a pack this one created. The capacity stays: no allocation per execution.
struct PackList {
  std::mutex mutex;
  std::vector<VariantPack> packs;
};

// Every live thread's list, and the packs of threads that ended. Lock order: this mutex, then
// a list's.
struct AllThreads {
  std::mutex mutex;
  std::vector<PackList*> lists;
  std::vector<VariantPack> orphans;
};

// Never destroyed: threads end, and hand their packs over, after exit's static destructors.
AllThreads& all_threads() {
  static auto* all = new AllThreads;
  return *all;
}

// Set as this thread's list goes: calls made later in the thread's end (another thread-local's
// destructor destroying descriptors) find none. Trivially destructible, so valid to the last.
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
      // No memory: this thread's packs stay unknown to the others.
    }
  }
  ~ThisThread() {
    thread_ended = true;
    if (!registered_) return;
    AllThreads& all = all_threads();
    std::lock_guard lock(all.mutex);
    all.lists.erase(std::find(all.lists.begin(), all.lists.end(), &list_));
    std::lock_guard own(list_.mutex);
    for (const VariantPack& pack : list_.packs) {
      if (all.orphans.size() >= kMaxOrphanPacks) all.orphans.erase(all.orphans.begin());
      all.orphans.push_back(pack);  // within the capacity reserved
    }
  }
  PackList& list() { return list_; }

 private:
  PackList list_;
  bool registered_ = false;
};

thread_local ThisThread this_thread;

// This thread's list; null once the thread is ending.
PackList* own_list() {
  return thread_ended ? nullptr : &this_thread.list();
}

VariantPack* in(std::vector<VariantPack>& packs, cudnnBackendDescriptor_t descriptor) {
  for (auto& pack : packs)
    if (pack.descriptor == descriptor) return &pack;
  return nullptr;
}

// `change` applied to this thread's record of `descriptor`; false where there is none.
template <typename Change>
bool on_own(cudnnBackendDescriptor_t descriptor, Change change) {
  PackList* list = own_list();
  if (!list) return false;
  std::lock_guard lock(list->mutex);
  VariantPack* pack = in(list->packs, descriptor);
  if (!pack) return false;
  change(*pack);
  return true;
}

// `change` applied to the current record of `descriptor` that another thread created, live or
// ended; false where there is none. Records older than the last foreign destruction are passed
// over: their address may since be a pack of another thread.
template <typename Change>
bool on_others(cudnnBackendDescriptor_t descriptor, Change change) {
  const PackList* own = own_list();
  AllThreads& all = all_threads();
  std::lock_guard lock(all.mutex);
  const std::uint64_t generation = generation_now();
  auto current = [&](std::vector<VariantPack>& packs) {
    VariantPack* pack = in(packs, descriptor);
    return pack && pack->generation == generation ? pack : nullptr;
  };
  for (PackList* list : all.lists) {
    if (list == own) continue;
    std::lock_guard held(list->mutex);
    if (VariantPack* pack = current(list->packs)) {
      change(*pack);
      return true;
    }
  }
  VariantPack* pack = current(all.orphans);
  if (!pack) return false;
  change(*pack);
  return true;
}

VariantPack fresh(cudnnBackendDescriptor_t descriptor) {
  VariantPack pack;
  pack.descriptor = descriptor;
  pack.generation = generation_now();
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

// Every record of `descriptor` in `packs` removed; whether there was one. Swapped with the last:
// order means nothing, and nothing moves but one record.
bool remove(std::vector<VariantPack>& packs, cudnnBackendDescriptor_t descriptor) {
  bool found = false;
  for (std::size_t i = 0; i < packs.size();) {
    if (packs[i].descriptor != descriptor) {
      ++i;
      continue;
    }
    packs[i] = packs.back();
    packs.pop_back();
    found = true;
  }
  return found;
}

}  // namespace

void* VariantPack::pointer(std::int64_t uid) const {
  for (int i = 0; i < uid_count && i < pointer_count; ++i)
    if (uids[static_cast<std::size_t>(i)] == uid) return pointers[static_cast<std::size_t>(i)];
  return nullptr;
}

void ThreadVariantPacks::created(cudnnBackendDescriptor_t descriptor) {
  PackList* list = own_list();
  if (!list) return;  // the thread is ending: the pack reads as unknown
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
  PackList* list = own_list();
  if (!list) return false;
  std::lock_guard lock(list->mutex);
  return remove(list->packs, descriptor);
}

bool ThreadVariantPacks::destroyed_elsewhere(cudnnBackendDescriptor_t descriptor) {
  // Every record of it, current or not: none may outlive the descriptor.
  const PackList* own = own_list();
  AllThreads& all = all_threads();
  std::lock_guard lock(all.mutex);
  bool found = remove(all.orphans, descriptor);
  for (PackList* list : all.lists) {
    if (list == own) continue;
    std::lock_guard held(list->mutex);
    found = remove(list->packs, descriptor) || found;
  }
  return found;
}

void ThreadVariantPacks::foreign_destruction() {
  foreign_destructions.fetch_add(1, std::memory_order_acq_rel);
}

bool ThreadVariantPacks::find(cudnnBackendDescriptor_t descriptor, VariantPack& into) {
  auto take = [&](VariantPack& pack) { into = pack; };
  // This thread's record first; one older than the last foreign destruction may be stale, and
  // the pack at its address another thread's.
  const bool found = (on_own(descriptor, take) && into.generation == generation_now()) ||
                     on_others(descriptor, take);
  return found && into.finalized && into.readable && into.generation == generation_now();
}

}  // namespace ucudnn::shim::backend
