#pragma once
// Identifies one convolution kernel (operation + full problem) for caching benchmarks and
// plans. The key string is canonical, human-readable and versioned: equal problems give
// equal strings, any differing field gives a different one.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/convolution_problem.h"

namespace ucudnn {

enum class Operation { kForward, kBackwardData, kBackwardFilter };
std::string_view name_of(Operation operation);

// FNV-1a of a kernel key's text as 16 hex digits: what KernelKey::hash_hex() gives, for
// tools that hold only the text (a database row).
std::string kernel_hash_hex(std::string_view key_text);

struct KernelKey {
  Operation operation = Operation::kForward;
  ConvolutionProblem problem;

  static constexpr int kVersion = 1;

  std::string to_string() const;  // e.g. "ucudnn-kernel/1 op=Forward x=[..]:[..] ..."
  // For people, in logs: the operation and the input and filter shapes, "Forward x=[8,3,16,16]
  // w=[16,3,5,5]".
  std::string brief() const;
  std::uint64_t hash() const;    // FNV-1a of to_string()
  std::string hash_hex() const;  // 16 hex digits

  KernelKey with_batch(std::int64_t micro_batch) const {
    return KernelKey{operation, problem.with_batch(micro_batch)};
  }
  friend bool operator==(const KernelKey&, const KernelKey&) = default;
};

// For in-memory maps on hot paths: hashes the fields directly, no text. Not stable across
// versions; persistent keys use to_string() and hash().
struct KernelKeyHash {
  std::size_t operator()(const KernelKey& key) const;
};

}  // namespace ucudnn
