#pragma once
// What the shim keeps a plan for: a kernel (operation + full problem), optionally the
// application's layer id (UcudnnHandle_t's overloads take one) so that two layers of the
// same shape can have plans and WD workspace segments of their own, and whether only
// deterministic algorithms may run it (a graph API engine without the NONDETERMINISTIC note).
#include <cstdint>
#include <optional>
#include <string>

#include "core/kernel_key.h"
#include "core/plan_mode.h"

namespace ucudnn::shim {

inline constexpr std::int64_t kNoLayer = -1;

struct KernelIdentity {
  KernelKey key;
  std::int64_t layer = kNoLayer;
  bool deterministic_only = false;
  friend bool operator==(const KernelIdentity&, const KernelIdentity&) = default;
};

struct KernelIdentityHash {
  std::size_t operator()(const KernelIdentity& identity) const {
    return KernelKeyHash{}(identity.key) ^
           (static_cast<std::size_t>(identity.layer) * 0x9e3779b97f4a7c15ULL) ^
           (identity.deterministic_only ? 0x5bd1e995ULL : 0);
  }
};

// How a WD division names the kernel in its stored subject: a kernel kept to deterministic
// algorithms is another member than its unrestricted twin, so that neither kind of job adopts,
// discards and overwrites the other's division.
inline std::string division_member_name(const KernelIdentity& identity) {
  std::string name = identity.key.hash_hex();
  if (identity.deterministic_only) name += kDeterministicSuffix;
  return name;
}

// What a call asks of the plan that runs it, beside its descriptors: the layer id of
// UcudnnHandle_t's overloads, and determinism and math type (the graph API's engines: the
// legacy descriptors a graph-API call is carried by cannot say a math type that allows only one
// of the two conversions). Implicit from a layer id, as the legacy calls pass one.
struct PlanScope {
  PlanScope(std::int64_t layer_id = kNoLayer) : layer(layer_id) {}  // NOLINT: a layer id is one
  PlanScope(std::int64_t layer_id, bool deterministic)
      : layer(layer_id), deterministic_only(deterministic) {}
  std::int64_t layer;
  bool deterministic_only = false;
  std::optional<MathType> math;  // the kernel's, over what the descriptors say
};

}  // namespace ucudnn::shim
