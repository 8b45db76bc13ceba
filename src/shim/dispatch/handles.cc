// Handle lifetime and the options API (dispatch.h): cudnnCreate/cudnnDestroy through the
// resolved table, UcudnnHandle_t's and ucudnnSet*'s options (each invalidates the handle's plans
// where it changes what they were planned for), the runtime call counts.
#include "shim/dispatch.h"

#include "cudnn/runtime_call_counts.h"
#include "shim/dispatch/planning.h"
#include "shim/log.h"
#include "shim/registry.h"

namespace ucudnn::shim {

using namespace dispatch;

cudnnStatus_t create_handle(cudnnHandle_t* handle) {
  const auto& api = cudnn::cudnn_api();
  if (!api.cudnnCreate) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t status = api.cudnnCreate(handle);
  if (status == CUDNN_STATUS_SUCCESS && handle && *handle) {
    try {
      Registry::instance().created(*handle);
    } catch (const std::exception&) {
      // Out of memory for our state: the first convolution call creates it instead.
    }
  }
  return status;
}

cudnnStatus_t destroy_handle(cudnnHandle_t handle) {
  return guarded("cudnnDestroy", [&]() -> cudnnStatus_t {
    const auto& api = cudnn::cudnn_api();
    if (!api.cudnnDestroy) return CUDNN_STATUS_NOT_INITIALIZED;
    if (handle) Registry::instance().forget(handle);
    return api.cudnnDestroy(handle);
  });
}

namespace {
template <typename Change>
cudnnStatus_t change_options(cudnnHandle_t handle, Change change) {
  return guarded("ucudnn options", [&]() -> cudnnStatus_t {
    if (!handle) return CUDNN_STATUS_BAD_PARAM;
    auto state = Registry::instance().state(handle);
    std::lock_guard lock(state->mutex);
    const cudnnStatus_t status = change(*state);
    Registry::instance().plans_changed();
    return status;
  });
}
}  // namespace

cudnnStatus_t set_batch_size_policy(cudnnHandle_t handle, const char* policy) {
  if (!policy) return CUDNN_STATUS_BAD_PARAM;
  return change_options(handle, [&](HandleState& state) {
    auto parsed = parse_batch_size_policy(policy);
    if (!parsed) {
      log(LogLevel::kError, "UcudnnHandle_t::setBatchSizePolicy: " + parsed.error());
      return CUDNN_STATUS_BAD_PARAM;
    }
    state.options.policy = *parsed;
    state.plans.clear();
    state.division.reset();  // the next call takes the session of the new policy
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t set_workspace_limit(cudnnHandle_t handle, std::size_t bytes) {
  return change_options(handle, [&](HandleState& state) {
    state.options.workspace_limit = bytes;
    state.plans.clear();
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t set_total_workspace_size(cudnnHandle_t handle, std::size_t bytes) {
  return change_options(handle, [&](HandleState& state) {
    state.options.total_workspace = bytes;
    division_session(state, process_settings());  // takes the new total's session, or none
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t set_database(const char* path) {
  return guarded("ucudnnSetDatabase", [&]() -> cudnnStatus_t {
    if (!path || !*path) return CUDNN_STATUS_BAD_PARAM;
    return Registry::instance().use_database(path) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
  });
}

cudnnStatus_t runtime_call_counts(UcudnnRuntimeCallCounts* measuring,
                                  UcudnnRuntimeCallCounts* other) {
  if (!measuring || !other) return CUDNN_STATUS_BAD_PARAM;
  auto exported = [](const cudnn::RuntimeCallCounts& c) {
    return UcudnnRuntimeCallCounts{c.allocations, c.frees, c.synchronizations};
  };
  const auto totals = cudnn::runtime_call_totals();
  *measuring = exported(totals.measuring);
  *other = exported(totals.other);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t optimize(cudnnHandle_t handle) {
  return change_options(handle, [&](HandleState& state) {
    const Settings& settings = process_settings();
    if (!planning_possible()) return CUDNN_STATUS_NOT_INITIALIZED;
    auto* division = division_session(state, settings);
    if (!division) {  // WR plans are made per kernel already
      warn_once("optimize-under-wr",
                "optimize(): the handle has no total workspace (setTotalWorkspaceSize, "
                "UCUDNN_TOTAL_WORKSPACE_SIZE), so there is nothing to divide: each kernel is "
                "planned within its own limit at its first call");
      return CUDNN_STATUS_SUCCESS;
    }
    return division->solve(division_context(state, settings)) ? CUDNN_STATUS_SUCCESS
                                                              : CUDNN_STATUS_NOT_SUPPORTED;
  });
}

}  // namespace ucudnn::shim
