#include "cudnn/side_by_side.h"

#include <algorithm>
#include <array>

#include "core/tensor_values.h"
#include "cudnn/device_memory.h"
#include "cudnn/event_timer.h"
#include "cudnn/plan_executor.h"
#include "cudnn/scaling.h"

namespace ucudnn::cudnn {

double stated_tolerance(DataType type) {
  switch (type) {
    case DataType::kDouble:
      return 1e-10;
    case DataType::kFloat:
      return 5e-3;
    default:
      return 5e-2;
  }
}

namespace {

// x, w, y on the device: 0, 1, 2.
struct DeviceTensors {
  std::array<std::optional<DeviceBuffer>, 3> buffers;
  bool allocated() const {
    return std::all_of(buffers.begin(), buffers.end(), [](const auto& b) { return b.has_value(); });
  }
  ConvolutionBuffers convolution() const {
    return {buffers[0]->data(), buffers[1]->data(), buffers[2]->data()};
  }
};

int output_index(Operation operation) {
  return operation == Operation::kForward ? 2 : operation == Operation::kBackwardData ? 0 : 1;
}

}  // namespace

std::optional<SideBySideRuns> run_side_by_side(const CudnnApi& api, const CudaRuntime& runtime,
                                               cudnnHandle_t handle, const KernelKey& kernel,
                                               const Configuration& plan,
                                               const Configuration& baseline, int repeats,
                                               std::mt19937_64& random) {
  try {
    const PlanExecutor executors[] = {{api, handle, kernel, plan}, {api, handle, kernel, baseline}};
    const auto& p = kernel.problem;
    const std::array<std::vector<std::byte>, 3> host = {
        random_tensor_bytes(p.x, p.data_type, random),
        random_tensor_bytes(p.w, p.data_type, random),
        random_tensor_bytes(p.y, p.data_type, random)};
    cudaStream_t stream = nullptr;
    api.cudnnGetStream(handle, &stream);
    DeviceTensors tensors[2];
    for (auto& t : tensors)
      for (int i = 0; i < 3; ++i) {
        t.buffers[i] = DeviceBuffer::allocate(runtime, host[i].size());
        if (t.buffers[i] && t.buffers[i]->size() &&
            runtime.cudaMemcpyAsync(t.buffers[i]->data(), host[i].data(), host[i].size(),
                                    cudaMemcpyHostToDevice, stream) != cudaSuccess)
          return std::nullopt;
      }
    auto workspace = DeviceBuffer::allocate(
        runtime, std::max(executors[0].workspace_bytes(), executors[1].workspace_bytes()));
    if (!tensors[0].allocated() || !tensors[1].allocated() || !workspace) return std::nullopt;
    const void* alpha = scaling_one(p.data_type);
    const void* beta = scaling_zero(p.data_type);
    auto run = [&](int which) {
      return executors[which]
                 .run(handle, alpha, tensors[which].convolution(), workspace->data(),
                      workspace->size(), beta)
                 .status == CUDNN_STATUS_SUCCESS;
    };
    if (!run(0) || !run(1)) return std::nullopt;  // warm-up
    std::vector<double> times[2];
    for (int r = 0; r < std::max(1, repeats); ++r)
      for (int which = 0; which < 2; ++which) {
        const auto timed = time_with_events(runtime, stream, 1, [&] { return run(which); });
        if (timed.failure != EventTimes::Failure::kNone) return std::nullopt;
        times[which].push_back(timed.median());
      }
    SideBySideRuns result;
    for (auto& t : times) std::sort(t.begin(), t.end());
    result.plan_ms = times[0][times[0].size() / 2];
    result.baseline_ms = times[1][times[1].size() / 2];

    const int out = output_index(kernel.operation);
    std::vector<std::byte> outputs[2];
    for (int which = 0; which < 2; ++which) {
      outputs[which].resize(host[out].size());
      if (!outputs[which].empty() &&
          runtime.cudaMemcpyAsync(outputs[which].data(), tensors[which].buffers[out]->data(),
                                  outputs[which].size(), cudaMemcpyDeviceToHost,
                                  stream) != cudaSuccess)
        return std::nullopt;
    }
    if (runtime.cudaStreamSynchronize(stream) != cudaSuccess) return std::nullopt;
    const auto a = widened_values(outputs[0], p.data_type);
    const auto b = widened_values(outputs[1], p.data_type);
    if (a && b)
      result.outputs =
          OutputComparison{normwise_difference(*a, *b), 2 * stated_tolerance(p.data_type)};
    return result;
  } catch (const std::exception&) {
    return std::nullopt;  // a descriptor or algorithm cuDNN refuses
  }
}

}  // namespace ucudnn::cudnn
