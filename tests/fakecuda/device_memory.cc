#include "device_memory.h"

#include <cstring>
#include <new>

namespace ucudnn::fakecuda {

namespace {
constexpr std::align_val_t kAlignment{256};
}

void* DeviceMemory::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  {
    std::lock_guard lock(mutex_);
    if (bytes > capacity_ - used_) return nullptr;
    used_ += bytes;  // reserved before the host allocation so racing callers see it
  }
  void* p = ::operator new(bytes, kAlignment, std::nothrow);
  if (!p) {
    std::lock_guard lock(mutex_);
    used_ -= bytes;
    return nullptr;
  }
  if (poison_) std::memset(p, 0xFF, bytes);
  std::lock_guard lock(mutex_);
  allocations_.emplace(reinterpret_cast<std::uintptr_t>(p), bytes);
  return p;
}

std::optional<std::size_t> DeviceMemory::release(void* p) {
  std::size_t bytes = 0;
  {
    std::lock_guard lock(mutex_);
    auto it = allocations_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == allocations_.end()) return std::nullopt;
    bytes = it->second;
    used_ -= bytes;
    allocations_.erase(it);
  }
  ::operator delete(p, kAlignment);
  return bytes;
}

bool DeviceMemory::contains(const void* p, std::size_t bytes) const {
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard lock(mutex_);
  auto it = allocations_.upper_bound(begin);
  if (it == allocations_.begin()) return false;
  --it;
  const std::uintptr_t base = it->first, end = base + it->second;
  return begin >= base && begin <= end && bytes <= end - begin;
}

std::size_t DeviceMemory::used() const {
  std::lock_guard lock(mutex_);
  return used_;
}

}  // namespace ucudnn::fakecuda
