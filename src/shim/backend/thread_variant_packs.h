#pragma once
// Variant packs as the application sets them, recorded by the thread that creates them.
// Frameworks build one per execution (PyTorch: create, set three attributes, finalize,
// execute, destroy), so packs stay out of the shared descriptor table and its lock: on the
// steady-state path a thread touches nothing another thread writes. A pack executed on another
// thread than its creator's, one with more tensors than kMaxTensors, or one this thread may
// have lost track of (some thread destroyed a descriptor no record knew, possibly this
// thread's pack, whose address may since be another's) reads as unknown: cuDNN then runs the
// plan itself, which is always correct.
#include <cudnn.h>

#include <array>
#include <cstdint>

namespace ucudnn::shim::backend {

struct VariantPack {
  static constexpr int kMaxTensors = 16;
  cudnnBackendDescriptor_t descriptor = nullptr;
  std::uint64_t generation = 0;  // foreign destructions seen when it was created
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
  // Each returns false when `descriptor` is no pack of this thread: the caller records the
  // call in the descriptor table instead.
  static bool set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                  cudnnBackendAttributeType_t type, std::int64_t count, const void* values);
  static bool finalized(cudnnBackendDescriptor_t descriptor);
  static bool initialized(cudnnBackendDescriptor_t descriptor);
  static bool destroyed(cudnnBackendDescriptor_t descriptor);
  // A descriptor no record knew was destroyed (on any thread): every pack recorded until now
  // may be stale.
  static void foreign_destruction();
  // This thread's finalized, readable, current record of `pack`, or null.
  static const VariantPack* find(cudnnBackendDescriptor_t pack);
};

}  // namespace ucudnn::shim::backend
