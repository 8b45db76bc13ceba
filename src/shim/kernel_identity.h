#pragma once
// What the shim keeps a plan for: a kernel (operation + full problem), and optionally the
// application's layer id (UcudnnHandle_t's overloads take one) so that two layers of the
// same shape can have plans and WD workspace segments of their own.
#include <cstdint>

#include "core/kernel_key.h"

namespace ucudnn::shim {

inline constexpr std::int64_t kNoLayer = -1;

struct KernelIdentity {
  KernelKey key;
  std::int64_t layer = kNoLayer;
  friend bool operator==(const KernelIdentity&, const KernelIdentity&) = default;
};

struct KernelIdentityHash {
  std::size_t operator()(const KernelIdentity& identity) const {
    return KernelKeyHash{}(identity.key) ^
           (static_cast<std::size_t>(identity.layer) * 0x9e3779b97f4a7c15ULL);
  }
};

}  // namespace ucudnn::shim
