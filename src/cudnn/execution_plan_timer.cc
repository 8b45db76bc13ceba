#include "cudnn/execution_plan_timer.h"

#include "cudnn/device_memory.h"
#include "cudnn/event_timer.h"
#include "cudnn/runtime_call_counts.h"

namespace ucudnn::cudnn {

namespace {

// A variant pack of ours, destroyed with its scope.
class ScratchPack {
 public:
  explicit ScratchPack(const BackendApi& backend) : backend_(backend) {
    if (!backend_.cudnnBackendCreateDescriptor ||
        backend_.cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack_) !=
            CUDNN_STATUS_SUCCESS)
      pack_ = nullptr;
  }
  ~ScratchPack() {
    if (pack_) backend_.cudnnBackendDestroyDescriptor(pack_);
  }
  ScratchPack(const ScratchPack&) = delete;
  ScratchPack& operator=(const ScratchPack&) = delete;

  bool fill(const std::vector<std::int64_t>& uids, const std::vector<void*>& pointers,
            void* workspace) {
    const auto count = static_cast<std::int64_t>(uids.size());
    return pack_ && backend_.cudnnBackendSetAttribute && backend_.cudnnBackendFinalize &&
           backend_.cudnnBackendSetAttribute(pack_, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                             CUDNN_TYPE_INT64, count,
                                             uids.data()) == CUDNN_STATUS_SUCCESS &&
           backend_.cudnnBackendSetAttribute(pack_, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                             CUDNN_TYPE_VOID_PTR, count,
                                             pointers.data()) == CUDNN_STATUS_SUCCESS &&
           backend_.cudnnBackendSetAttribute(pack_, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                             CUDNN_TYPE_VOID_PTR, 1,
                                             &workspace) == CUDNN_STATUS_SUCCESS &&
           backend_.cudnnBackendFinalize(pack_) == CUDNN_STATUS_SUCCESS;
  }
  cudnnBackendDescriptor_t get() const { return pack_; }

 private:
  const BackendApi& backend_;
  cudnnBackendDescriptor_t pack_ = nullptr;
};

}  // namespace

std::optional<PlanTiming> time_execution_plan(const BackendApi& backend, const CudnnApi& api,
                                              const CudaRuntime& runtime, cudnnHandle_t handle,
                                              cudnnBackendDescriptor_t plan,
                                              const std::vector<PlanTensor>& tensors,
                                              std::size_t workspace_bytes, int repeats,
                                              Gating* gating) {
  if (!backend.cudnnBackendExecute || !api.cudnnGetStream) return std::nullopt;
  const MeasuringScope measuring;
  cudaStream_t stream = nullptr;
  if (api.cudnnGetStream(handle, &stream) != CUDNN_STATUS_SUCCESS) return std::nullopt;
  std::vector<DeviceBuffer> buffers;
  std::vector<std::int64_t> uids;
  std::vector<void*> pointers;
  for (const PlanTensor& t : tensors) {
    auto buffer = DeviceBuffer::allocate(runtime, t.bytes);
    if (!buffer) return std::nullopt;
    if (buffer->size()) runtime.cudaMemsetAsync(buffer->data(), 0, buffer->size(), stream);
    uids.push_back(t.uid);
    pointers.push_back(buffer->data());
    buffers.push_back(std::move(*buffer));
  }
  auto workspace = DeviceBuffer::allocate(runtime, workspace_bytes);
  if (!workspace) return std::nullopt;
  ScratchPack pack(backend);
  if (!pack.fill(uids, pointers, workspace->data())) return std::nullopt;
  auto run = [&] {
    return backend.cudnnBackendExecute(handle, plan, pack.get()) == CUDNN_STATUS_SUCCESS;
  };
  if (!run()) return std::nullopt;  // warm-up
  const auto timed = time_with_events(runtime, stream, repeats, run, gating);
  if (timed.failure != EventTimes::Failure::kNone) return std::nullopt;
  return PlanTiming{timed.median(), timed.least_host(), timed.ungated, timed.gates_timed_out};
}

}  // namespace ucudnn::cudnn
