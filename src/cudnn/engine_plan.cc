#include "cudnn/engine_plan.h"

#include <string>
#include <utility>
#include <vector>

#include "cudnn/measuring_account.h"
#include "cudnn/real_call_clock.h"

namespace ucudnn::cudnn {

namespace {

void require(cudnnStatus_t status, const EngineName& name, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw EngineRefused("cuDNN refuses " + name.to_string() + "'s " + what + " (status " +
                        std::to_string(static_cast<int>(status)) + ")");
}

}  // namespace

EnginePlan::EnginePlan(cudnnHandle_t handle, Operation operation, const ConvolutionProblem& problem,
                       const EngineName& name, double alpha, double beta)
    : graph_([&] {
        try {
          return ConvolutionGraph(handle, operation, problem, alpha, beta);
        } catch (const std::runtime_error& e) {
          throw EngineRefused(e.what());
        }
      }()) {
  auto found = finalized_engine(graph_, name.engine);
  if (!found) throw EngineRefused("cuDNN refuses " + name.to_string() + "'s " + found.error());
  const BackendDescriptor engine = std::move(found).value();
  notes_ = engine_notes(engine);
  std::vector<BackendDescriptor> choices;
  std::vector<cudnnBackendDescriptor_t> raw_choices;
  for (const auto& [type, value] : name.knobs) {
    BackendDescriptor& choice = choices.emplace_back(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    const auto knob = static_cast<cudnnBackendKnobType_t>(type);
    require(choice.set(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, knob), name,
            "knob type");
    require(choice.set(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, value), name,
            "knob value");
    require(choice.finalize(), name, "knob choice");
    raw_choices.push_back(choice.get());
  }
  BackendDescriptor configuration(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  const cudnnBackendDescriptor_t e = engine.get();
  require(configuration.set(CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, e), name,
          "engine");
  if (!raw_choices.empty())
    require(configuration.set(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                              static_cast<std::int64_t>(raw_choices.size()), raw_choices.data()),
            name, "knob choices");
  require(configuration.finalize(), name, "configuration");
  plan_ = BackendDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  const cudnnBackendDescriptor_t c = configuration.get();
  require(plan_.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle), name, "handle");
  require(plan_.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, c),
          name, "plan's configuration");
  // Where cuDNN builds the plan's kernels (compiles them, for a runtime-compiled engine).
  const std::uint64_t start = RealCallClock::now();
  require(plan_.finalize(), name, "execution plan");
  count_finalized_plan(RealCallClock::now() - start, name, problem.batch());
  std::int64_t bytes = 0, count = 0;
  require(plan_.get(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count, &bytes),
          name, "workspace size");
  if (bytes < 0) throw EngineRefused(name.to_string() + " reports a negative workspace");
  workspace_bytes_ = static_cast<std::uint64_t>(bytes);
}

cudnnStatus_t EnginePlan::execute(cudnnHandle_t handle, const ConvolutionBuffers& buffers,
                                  void* workspace) const {
  if (!aligned(buffers.x, graph_.sliced_alignment()) ||
      !aligned(buffers.y, graph_.sliced_alignment()) ||
      !aligned(buffers.w, graph_.filter_alignment()))
    return CUDNN_STATUS_BAD_PARAM;
  // The variant pack names this call's pointers: made per call, as frameworks make theirs.
  BackendDescriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  const std::int64_t uids[] = {GraphTensorIds::x, GraphTensorIds::w, GraphTensorIds::y};
  void* pointers[] = {buffers.x, buffers.w, buffers.y};
  cudnnStatus_t status = pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  if (status == CUDNN_STATUS_SUCCESS)
    status = pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
  if (status == CUDNN_STATUS_SUCCESS)
    status = pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, workspace);
  if (status == CUDNN_STATUS_SUCCESS) status = pack.finalize();
  if (status != CUDNN_STATUS_SUCCESS) return status;
  return backend_api().cudnnBackendExecute(handle, plan_.get(), pack.get());
}

}  // namespace ucudnn::cudnn
