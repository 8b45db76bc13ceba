#pragma once
// The doubles' "device" memory: host memory handed out as tracked allocations under a
// fixed capacity, so the cuDNN double can tell whether a pointer range a caller passes lies
// inside one live allocation (which catches wrong micro-batch offsets), and so running out
// of device memory can be tested.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

namespace ucudnn::fakecuda {

class DeviceMemory {
 public:
  // `poison`: fill new allocations (below). Without arithmetic (FAKECUDA_COMPUTE=0) nothing
  // reads them, and filling gigabytes of benchmark buffers would dominate a run.
  // `held`: what other processes hold of the capacity (taken from the free memory, never
  // released), as on a shared GPU.
  explicit DeviceMemory(std::size_t capacity, bool poison = true, std::size_t held = 0)
      : capacity_(capacity), poison_(poison), used_(held < capacity ? held : capacity) {}
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // 256-byte aligned like cudaMalloc, filled with 0xFF bytes when poisoning (NaN as float and
  // double) so that reading memory nobody wrote shows up in results. nullptr when the capacity or
  // the host cannot provide it; never for 0 bytes either (callers handle 0 themselves).
  void* allocate(std::size_t bytes);
  // The allocation's size; nullopt when p is not the base of a live allocation.
  std::optional<std::size_t> release(void* p);
  // Does [p, p + bytes) lie inside one live allocation?
  bool contains(const void* p, std::size_t bytes) const;

  std::size_t capacity() const { return capacity_; }
  std::size_t used() const;

 private:
  const std::size_t capacity_;
  const bool poison_;
  mutable std::mutex mutex_;
  std::size_t used_;                                   // held by others, and the allocations'
  std::map<std::uintptr_t, std::size_t> allocations_;  // base -> bytes
};

}  // namespace ucudnn::fakecuda
