#pragma once
// What the shim keeps per cuDNN handle: the options set through the API (unset ones follow
// the environment), the WR plans of the kernels it has seen, and the WD session it uses. Calls on
// one handle are serialized by its mutex; different handles proceed in parallel.
#include <cudnn.h>

#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/lru_map.h"
#include "cudnn/plan_executor.h"
#include "shim/kernel_identity.h"
#include "shim/settings.h"
#include "shim/workspace_division_session.h"

namespace ucudnn::shim {

struct HandleOptions {
  std::optional<BatchSizePolicy> policy;
  std::optional<std::uint64_t> workspace_limit;
  std::optional<std::uint64_t> total_workspace;  // 0: WR, whatever the environment says
};

// Bounds on what a handle remembers: applications vary shapes and Find*Ex sizes without end.
inline constexpr std::size_t kKernelsPerHandle = 4096;
inline constexpr std::size_t kLimitsPerKernel = 8;

// A kernel's WR plans, one per workspace limit it was planned under (the most recent few),
// and the one the application was last told about (Get/Find, GetWorkspaceSize): a
// convolution call whose workspace fits that one runs it, so what Find reported is what runs.
// Limits under which planning found nothing are remembered too: the kernel passes through
// there until the next Find, instead of being planned again at every call, each call running
// the undivided algorithm cuDNN's heuristics chose for its workspace the first time (kept per
// workspace size and determinism, so that no later call asks the heuristics again).
struct KernelPlans {
  LruMap<std::uint64_t, std::shared_ptr<cudnn::PlanExecutor>> by_limit{kLimitsPerKernel};
  std::shared_ptr<cudnn::PlanExecutor> reported;
  std::vector<std::uint64_t> failed_limits;
  LruMap<std::uint64_t, std::shared_ptr<cudnn::PlanExecutor>> undivided{kLimitsPerKernel};
};

struct HandleState {
  cudnnHandle_t handle = nullptr;
  int device = 0;
  std::mutex mutex;
  HandleOptions options;
  LruMap<KernelIdentity, KernelPlans, KernelIdentityHash> plans{kKernelsPerHandle};
  // The device's WD session for this handle's total and policy (shared with the other
  // handles that ask for the same); null under WR. See division_session() in dispatch.cc.
  std::shared_ptr<WorkspaceDivisionSession> division;
  BatchSizePolicy division_policy = BatchSizePolicy::kAll;  // the policy it was asked for
  // The host's side of CPU/GPU hybrid once its link is measured (UCUDNN_HYBRID is fixed for
  // the process): WD's every call plans with it without taking the device's locks again.
  std::optional<HostSide> hybrid_host;

  BatchSizePolicy policy(const Settings& settings) const {
    return options.policy.value_or(settings.policy);
  }
  std::optional<std::uint64_t> workspace_limit(const Settings& settings) const {
    return options.workspace_limit ? options.workspace_limit : settings.workspace_limit;
  }
  std::optional<std::uint64_t> total_workspace(const Settings& settings) const {
    const auto total = options.total_workspace ? options.total_workspace : settings.total_workspace;
    if (total && *total == 0) return std::nullopt;
    return total;
  }
};

}  // namespace ucudnn::shim
