#pragma once
// Variant packs as the application sets them, recorded by the thread that creates them.
// Frameworks build one per execution (PyTorch: create, set three attributes, finalize,
// execute, destroy), so packs stay out of the shared descriptor table and its lock: on the
// steady-state path a thread takes only its own records' lock, which no other thread takes
// unless it uses a pack this thread created. A pack built on one thread (a worker that may
// have ended since) and set, executed or destroyed on another is found in its creator's
// records, or among those of ended threads; a destruction seen on any thread removes the record
// wherever it is, so none outlives its descriptor. A pack with more tensors than kMaxTensors,
// one with attributes ucudnn does not record, or one whose record was dropped (more than 64
// live on one thread, more than 256 left by ended threads) reads as unknown: cuDNN then runs
// the plan itself, which is always correct.
#include <cudnn.h>

#include <array>
#include <cstdint>

namespace ucudnn::shim::backend {

struct VariantPack {
  static constexpr int kMaxTensors = 16;
  cudnnBackendDescriptor_t descriptor = nullptr;
  bool finalized = false;
  bool readable = true;  // false once something was set that is not recorded here
  int uid_count = 0, pointer_count = 0;
  std::array<std::int64_t, kMaxTensors> uids{};
  std::array<void*, kMaxTensors> pointers{};
  void* workspace = nullptr;

  // The pointer for `uid`, or null.
  void* pointer(std::int64_t uid) const;
};

class ThreadVariantPacks {
 public:
  // At cudnnBackendCreateDescriptor of a variant pack, on the creating thread.
  static void created(cudnnBackendDescriptor_t pack);
  // Each returns false when `descriptor` is no pack this thread created: the caller records
  // the call in the descriptor table instead, or, where the table has no record of it either,
  // in another thread's pack (the *_elsewhere forms, which take the lock of every thread's
  // records they look through).
  static bool set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                  cudnnBackendAttributeType_t type, std::int64_t count, const void* values);
  static bool finalized(cudnnBackendDescriptor_t descriptor);
  static bool initialized(cudnnBackendDescriptor_t descriptor);
  static bool destroyed(cudnnBackendDescriptor_t descriptor);
  static bool set_elsewhere(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, std::int64_t count,
                            const void* values);
  static bool finalized_elsewhere(cudnnBackendDescriptor_t descriptor);
  static bool initialized_elsewhere(cudnnBackendDescriptor_t descriptor);
  static bool destroyed_elsewhere(cudnnBackendDescriptor_t descriptor);
  // The finalized, readable record of `pack` (this thread's, else whichever thread created it),
  // copied into `into`; false where there is none.
  static bool find(cudnnBackendDescriptor_t pack, VariantPack& into);
};

}  // namespace ucudnn::shim::backend
