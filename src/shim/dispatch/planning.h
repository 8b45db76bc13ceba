#pragma once
// What the shim's calls (dispatch.h) share: the guards that keep every failure inside the C
// boundary and fall back to cuDNN's undivided call, reading a call's kernel, and planning a
// kernel under WR (per limit, with the CPU under UCUDNN_HYBRID) or finding its WD session.
// Internal to the shim's dispatch (selection.cc, running.cc, handles.cc).
#include <cudnn.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "core/configuration.h"
#include "cudnn/convolution_arguments.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/plan_executor.h"
#include "cudnn/problem_from_descriptors.h"
#include "shim/handle_state.h"
#include "shim/kernel_identity.h"
#include "shim/kernel_planner.h"
#include "shim/log.h"
#include "shim/settings.h"

namespace ucudnn::shim::dispatch {

using cudnn::AlgorithmPerf;
using cudnn::ConvolutionBuffers;
using cudnn::ConvolutionDescriptors;

// More results than any operation has algorithms, plus ours: larger requests are clamped so
// that a huge requestedAlgoCount never allocates.
constexpr int kMaxResults = 64;

bool planning_possible();

// Runs `body`, turning any exception into a status and a warning: nothing may cross the C
// boundary. Bodies catch what they can recover from themselves; this is the last line.
template <typename Body>
cudnnStatus_t guarded(const char* where, Body body) {
  try {
    return body();
  } catch (const std::exception& error) {
    warn_once(std::string("exception:") + where,
              std::string(where) + " failed inside ucudnn: " + error.what());
  } catch (...) {
    warn_once(std::string("exception:") + where, std::string(where) + " failed inside ucudnn");
  }
  return CUDNN_STATUS_INTERNAL_ERROR;
}

// What failed, named only when something does: a steady-state call formats no string.
struct Failing {
  Operation operation;
  const char* step;  // " planning", " with the virtual algorithm"
  std::string describe() const { return std::string(name_of(operation)) + step; }
};

// Runs `planned`; on an exception warns once and runs `fallback` instead.
template <typename Planned, typename Fallback>
cudnnStatus_t or_else(const Failing& failing, Planned planned, Fallback fallback) {
  try {
    return planned();
  } catch (const std::exception& error) {
    const std::string what = failing.describe();
    warn_once("failed:" + what, what + " failed inside ucudnn (" + error.what() +
                                    "); cuDNN's own undivided call is used instead");
  }
  return fallback();
}

PlannerContext context_for(HandleState& state, const Settings& settings);

// Whether every micro-batch of the configuration runs a deterministic algorithm. An engine
// configuration's notes are not in its name: it counts as deterministic only in a kernel
// planned deterministic_only, whose candidates were kept to deterministic ones.
bool deterministic(const Configuration& configuration, Operation operation,
                   bool deterministic_only);

// Brings the handle's WD session in line with its options and returns it: the device's
// session for the total and policy, or null (and the handle lets go of it) under WR.
WorkspaceDivisionSession* division_session(HandleState& state, const Settings& settings);

// The WD session a call may use, null where none is on or it has given up. During capture the
// handle's session as it stands: re-reading the options could swap sessions, which allocates.
WorkspaceDivisionSession* active_division(HandleState& state, const Settings& settings,
                                          bool captured);

// How a call may plan a kernel it has no plan for.
struct Planning {
  bool may_measure = true;    // benchmark what the store lacks
  bool retry_failed = false;  // plan again under a limit that found nothing before (Find)
  std::optional<cudnn::CallerBuffers> caller;  // Find*Ex: measure in the caller's buffers
};

Planning planning_for(cudnn::Selection selection, const Settings& settings);

// A call that is not a Find: it plans only where UCUDNN_BENCHMARK_IN allows, and never again
// under a limit that found nothing.
Planning planning_outside_find(const Settings& settings);

// What WD plans and runs with: with the host where UCUDNN_HYBRID asks for it (the link probed
// within the total).
PlannerContext division_context(HandleState& state, const Settings& settings);

// The kernel's WR plan within `limit`, planned at most once per limit until a Find retries a
// failure; nullptr when nothing fits (the call passes through). Under UCUDNN_HYBRID the plan
// may split the batch with the CPU.
std::shared_ptr<cudnn::PlanExecutor> plan_within(HandleState& state, const KernelIdentity& kernel,
                                                 std::uint64_t limit, const Settings& settings,
                                                 const Planning& how);

// The first algorithm of cuDNN's heuristic ranking that runs within `bytes` and that
// `accept`s, as the application would have chosen without ucudnn; nullopt with the status
// when the ranking fails, nullopt with NOT_SUPPORTED when none fits.
template <class Accept>
std::optional<int> heuristic_algorithm(Operation operation, cudnnHandle_t handle,
                                       const ConvolutionDescriptors& d, std::size_t bytes,
                                       Accept accept, cudnnStatus_t& status) {
  AlgorithmPerf results[kMaxResults];
  int count = 0;
  status = cudnn::select_algorithms(cudnn::cudnn_api(), handle, operation,
                                    cudnn::Selection::kHeuristic, d, kMaxResults, &count, results);
  if (status != CUDNN_STATUS_SUCCESS) return std::nullopt;
  for (int i = 0; i < count; ++i)
    if (results[i].status == CUDNN_STATUS_SUCCESS && results[i].memory <= bytes &&
        accept(results[i].algorithm))
      return results[i].algorithm;
  status = CUDNN_STATUS_NOT_SUPPORTED;
  return std::nullopt;
}

// The undivided call with a concrete algorithm that fits the caller's workspace (a
// deterministic one where the caller asked for determinism).
cudnnStatus_t undivided(Operation operation, cudnnHandle_t handle, const void* alpha,
                        const ConvolutionDescriptors& d, const ConvolutionBuffers& buffers,
                        void* workspace, std::size_t bytes, const void* beta,
                        bool deterministic_only);

// What undivided() runs for `kernel` within `bytes`, as an executor kept with the kernel's plans
// (KernelPlans::undivided): a call that passes through runs it again without asking cuDNN's
// heuristics. Null where the heuristics rank none that fits (undivided() then answers).
std::shared_ptr<cudnn::PlanExecutor> undivided_executor(HandleState& state,
                                                        const KernelIdentity& kernel,
                                                        const ConvolutionDescriptors& d,
                                                        std::size_t bytes);

struct Request {
  const Settings& settings;
  KernelIdentity kernel;
};

// Reads the kernel of a call (from `snapshot` where the caller read the descriptors already).
// nullopt with an error status: the call is invalid (the caller returns the status, as cuDNN
// would); nullopt with `unsupported`: valid but not planned (disabled, incomplete libraries,
// vectorized or mixed types), passed through.
std::optional<Request> read_request(Operation operation, cudnnHandle_t handle,
                                    const ConvolutionDescriptors& d, PlanScope scope,
                                    cudnnStatus_t& status, bool& unsupported,
                                    const cudnn::DescriptorSnapshot* snapshot = nullptr);

}  // namespace ucudnn::shim::dispatch
