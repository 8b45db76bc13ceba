#pragma once
// The steady state of a legacy convolution call with the virtual algorithm: the plan this
// thread ran for the same call before (handle, operation, layer, determinism, workspace size,
// and what the descriptors read, byte for byte), taken again while no plan of any handle changed
// since (Registry::plans_epoch). Keyed by the descriptors' contents, not their handles:
// frameworks such as PyTorch create fresh descriptors for every call. The call then reads its
// descriptors (cuDNN's getters) and runs the plan: no allocation, no lock, no problem built.
// Per thread: frameworks call from two or three threads, which share nothing here.
#include <cudnn.h>

#include <cstdint>
#include <memory>

#include "core/kernel_key.h"
#include "cudnn/convolution_arguments.h"
#include "cudnn/plan_executor.h"
#include "cudnn/problem_from_descriptors.h"

namespace ucudnn::shim {

struct LegacyCall {
  cudnnHandle_t handle;
  Operation operation;
  std::int64_t layer;
  bool deterministic_only;
  std::size_t workspace_bytes;
  int math;  // PlanScope::math as an int, -1 where the descriptors say it
  friend bool operator==(const LegacyCall&, const LegacyCall&) = default;
};

class LegacyCallCache {
 public:
  // The plan to run, or null: not seen, descriptors changed, or plans changed since.
  static const cudnn::PlanExecutor* find(const LegacyCall& call,
                                         const cudnn::DescriptorSnapshot& snapshot,
                                         std::uint64_t epoch);
  // After the general path ran `plan` for the call: `epoch` as read before it started.
  static void remember(const LegacyCall& call, const cudnn::DescriptorSnapshot& snapshot,
                       std::uint64_t epoch, std::shared_ptr<const cudnn::PlanExecutor> plan);
};

}  // namespace ucudnn::shim
