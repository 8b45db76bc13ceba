#include "shim/hybrid_executor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "core/hybrid_split.h"
#include "cudnn/scaling.h"
#include "shim/log.h"
#include "shim/stream_state.h"

namespace ucudnn::shim {

// The latest host functions' times, a ring of the last kKept: enough for a median, bounded
// over a training run's millions of calls.
struct HostShareTimes {
  static constexpr std::size_t kKept = 64;
  std::mutex mutex;
  std::vector<double> ms;  // up to kKept
  std::size_t next = 0;
  void add(double value) {
    std::lock_guard lock(mutex);
    if (ms.size() < kKept) {
      ms.push_back(value);
    } else {
      ms[next] = value;
      next = (next + 1) % kKept;
    }
  }
  std::optional<double> median() {
    std::lock_guard lock(mutex);
    if (ms.empty()) return std::nullopt;
    std::vector<double> sorted = ms;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    return sorted[sorted.size() / 2];
  }
};

namespace {

std::size_t span_bytes(const TensorShape& shape, DataType type) {
  return shape.span_elements() * element_size(type);
}

// What a host function needs: everything by value or owned by the executor, which waits for
// its stream before it goes.
struct HostJob {
  HostBackend* host;
  const KernelKey* kernel;
  const Configuration* configuration;
  HostBackend::Tensors tensors;
  double alpha, beta;
  void* workspace;
  std::size_t workspace_bytes;
  std::shared_ptr<std::atomic<bool>> failed;
  std::shared_ptr<HostShareTimes> times;
};

// Runs on CUDA's host-function thread: no CUDA call may be made here.
void CUDART_CB run_host_job(void* data) {
  const std::unique_ptr<HostJob> job(static_cast<HostJob*>(data));
  try {
    const auto start = std::chrono::steady_clock::now();
    job->host->run(*job->kernel, *job->configuration, job->tensors, job->alpha, job->beta,
                   job->workspace, job->workspace_bytes);
    job->times->add(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    return;
  } catch (const std::exception& error) {
    warn_once("hybrid-host-failed:" + job->kernel->to_string(),
              std::string("the CPU's share of a hybrid plan failed (") + error.what() +
                  "); it is computed by the reference this time and the GPU takes the whole "
                  "batch from the next call");
  } catch (...) {
    warn_once("hybrid-host-failed:" + job->kernel->to_string(),
              "the CPU's share of a hybrid plan failed; it is computed by the reference this "
              "time and the GPU takes the whole batch from the next call");
  }
  job->failed->store(true);
  try {
    job->host->run_reference(*job->kernel, job->tensors, job->alpha, job->beta);
  } catch (...) {
    warn_once("hybrid-reference-failed:" + job->kernel->to_string(),
              "the reference could not compute the CPU's share either: its results are lost");
  }
}

struct FreeAligned {
  void operator()(std::byte* p) const { std::free(p); }
};

}  // namespace

struct HybridExecutor::Staging {
  Staging(const cudnn::CudaRuntime& runtime)
      : stream(runtime),
        start(runtime, cudaEventDisableTiming),
        host_done(runtime, cudaEventDisableTiming),
        staging_free(runtime, cudaEventDisableTiming) {}
  cudnn::PinnedBuffer x, w, y;
  std::unique_ptr<std::byte, FreeAligned> workspace;  // the host's, cache-line aligned
  std::size_t workspace_bytes = 0;
  cudnn::CudaStream stream;
  cudnn::CudaEvent start, host_done, staging_free;
  std::optional<cudnn::TensorDescriptor> flat_w;  // BackwardFilter's gradient as a vector
  bool staging_used = false;                      // staging_free was recorded
};

HybridExecutor::HybridExecutor(const cudnn::CudnnApi& api, const cudnn::CudaRuntime& runtime,
                               cudnnHandle_t handle, const KernelKey& kernel,
                               Configuration device_only, Configuration split, HostBackend& host,
                               cudnn::FinalizedPlans* kept)
    : PlanExecutor(api, handle, kernel, std::move(device_only), kept),
      api_(api),
      runtime_(runtime),
      split_(std::move(split)),
      host_(host),
      host_failed_(std::make_shared<std::atomic<bool>>(false)),
      host_times_(std::make_shared<HostShareTimes>()) {
  const auto& problem = kernel.problem;
  if (!split_.offload || split_.offload->micro.empty())
    throw std::invalid_argument("the plan gives the CPU no share");
  if (split_.batch() != problem.batch())
    throw std::invalid_argument("the split covers " + std::to_string(split_.batch()) +
                                " images of a batch of " + std::to_string(problem.batch()));
  if (!splittable_between_devices(kernel))
    throw std::invalid_argument("the samples interleave in memory: no split");
  device_samples_ = split_.device_batch();
  host_kernel_ = kernel.with_batch(split_.offload->batch());
  host_configuration_ = Configuration{split_.offload->micro, std::nullopt};
  if (device_samples_ > 0)
    device_share_ =
        std::make_unique<cudnn::PlanExecutor>(api, handle, kernel.with_batch(device_samples_),
                                              Configuration{split_.micro, std::nullopt}, kept);

  auto staging = std::make_unique<Staging>(runtime);
  staging->workspace_bytes = host_.workspace_bytes(host_kernel_, host_configuration_);
  if (staging->workspace_bytes > 0) {
    constexpr std::size_t kLine = 64;
    void* memory =
        std::aligned_alloc(kLine, (staging->workspace_bytes + kLine - 1) / kLine * kLine);
    if (!memory) throw std::runtime_error("no host memory for the CPU's workspace");
    staging->workspace.reset(static_cast<std::byte*>(memory));
  }
  const DataType type = problem.data_type;
  auto pinned = [&](std::size_t bytes) {
    auto buffer = cudnn::PinnedBuffer::allocate(runtime, bytes);
    if (!buffer) throw std::runtime_error("no pinned host memory for the CPU's share");
    return std::move(*buffer);
  };
  staging->x = pinned(span_bytes(host_kernel_.problem.x, type));
  staging->w = pinned(span_bytes(problem.w, type));
  staging->y = pinned(span_bytes(host_kernel_.problem.y, type));
  if (!staging->stream.valid() || !staging->start.valid() || !staging->host_done.valid() ||
      !staging->staging_free.valid())
    throw std::runtime_error("no stream or events for the CPU's share");
  workspace_bytes_ = std::max(PlanExecutor::workspace_bytes(),
                              device_share_ ? device_share_->workspace_bytes() : 0);
  if (kernel.operation == Operation::kBackwardFilter) {
    const auto elements = static_cast<std::int64_t>(problem.w.span_elements());
    staging->flat_w.emplace(api, TensorShape::packed({1, elements, 1, 1}), type);
    workspace_bytes_ = std::max<std::uint64_t>(workspace_bytes_, span_bytes(problem.w, type));
  }
  staging_ = std::move(staging);
}

std::optional<double> HybridExecutor::median_host_share_ms() const {
  return host_times_->median();
}

HybridExecutor::~HybridExecutor() {
  // Host functions and copies still queued use the staging buffers.
  if (staging_ && staging_->stream.valid()) {
    runtime_.cudaStreamSynchronize(staging_->stream.get());
    runtime_.cudaGetLastError();
  }
}

cudnn::PlanExecutor::Result HybridExecutor::run(cudnnHandle_t handle, const void* alpha,
                                                const cudnn::ConvolutionBuffers& buffers,
                                                void* workspace, std::size_t workspace_bytes,
                                                const void* beta) const {
  if (workspace_bytes < workspace_bytes_ || (!workspace && workspace_bytes_ > 0))
    return {CUDNN_STATUS_BAD_PARAM, false};
  const auto stream = stream_of(handle);
  if (!capturing(stream) && !host_failed_->load())
    if (auto result = run_split(handle, *stream, alpha, buffers, workspace, workspace_bytes, beta))
      return *result;
  return PlanExecutor::run(handle, alpha, buffers, workspace, workspace_bytes, beta);
}

std::optional<cudnn::PlanExecutor::Result> HybridExecutor::run_split(
    cudnnHandle_t handle, cudaStream_t stream, const void* alpha,
    const cudnn::ConvolutionBuffers& buffers, void* workspace, std::size_t workspace_bytes,
    const void* beta) const {
  Staging& s = *staging_;
  const auto& problem = kernel().problem;
  const Operation operation = kernel().operation;
  const DataType type = problem.data_type;
  const std::size_t element = element_size(type);
  const auto samples = static_cast<std::size_t>(device_samples_);
  char* x_share = static_cast<char*>(buffers.x) +
                  samples * static_cast<std::size_t>(problem.x.strides[0]) * element;
  char* y_share = static_cast<char*>(buffers.y) +
                  samples * static_cast<std::size_t>(problem.y.strides[0]) * element;
  const std::size_t x_bytes = s.x.size(), w_bytes = s.w.size(), y_bytes = s.y.size();
  const bool keeps_output = !cudnn::scaling_is_zero(beta, type);
  const cudaStream_t host_stream = s.stream.get();
  auto copy = [&](void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind,
                  cudaStream_t on) {
    return runtime_.cudaMemcpyAsync(to, from, bytes, kind, on) == cudaSuccess;
  };
  auto unqueued = [&]() -> std::optional<Result> {
    runtime_.cudaGetLastError();
    return std::nullopt;
  };
  auto failed = [&] {
    runtime_.cudaGetLastError();
    return Result{CUDNN_STATUS_EXECUTION_FAILED, true};
  };

  // The host's stream starts where the application's stream is, and after the previous
  // call's last use of the staging buffers (the application may have changed streams).
  if (runtime_.cudaEventRecord(s.start.get(), stream) != cudaSuccess ||
      runtime_.cudaStreamWaitEvent(host_stream, s.start.get(), 0) != cudaSuccess ||
      (s.staging_used &&
       runtime_.cudaStreamWaitEvent(host_stream, s.staging_free.get(), 0) != cudaSuccess))
    return unqueued();

  // The share's inputs, and its old output where beta keeps it.
  constexpr auto kDown = cudaMemcpyDeviceToHost;
  bool inputs = true;
  switch (operation) {
    case Operation::kForward:
      inputs = copy(s.x.data(), x_share, x_bytes, kDown, host_stream) &&
               copy(s.w.data(), buffers.w, w_bytes, kDown, host_stream) &&
               (!keeps_output || copy(s.y.data(), y_share, y_bytes, kDown, host_stream));
      break;
    case Operation::kBackwardData:
      inputs = copy(s.y.data(), y_share, y_bytes, kDown, host_stream) &&
               copy(s.w.data(), buffers.w, w_bytes, kDown, host_stream) &&
               (!keeps_output || copy(s.x.data(), x_share, x_bytes, kDown, host_stream));
      break;
    case Operation::kBackwardFilter:
      inputs = copy(s.x.data(), x_share, x_bytes, kDown, host_stream) &&
               copy(s.y.data(), y_share, y_bytes, kDown, host_stream);
      break;
  }
  if (!inputs) return unqueued();
  // BackwardFilter's partial gradient is added to the GPU's: the CPU computes it alone.
  const bool partial = operation == Operation::kBackwardFilter;
  auto job = std::make_unique<HostJob>(HostJob{&host_,
                                               &host_kernel_,
                                               &host_configuration_,
                                               {s.x.data(), s.w.data(), s.y.data()},
                                               cudnn::scaling_value(alpha, type),
                                               partial ? 0.0 : cudnn::scaling_value(beta, type),
                                               s.workspace.get(),
                                               s.workspace_bytes,
                                               host_failed_,
                                               host_times_});
  if (runtime_.cudaLaunchHostFunc(host_stream, run_host_job, job.get()) != cudaSuccess)
    return unqueued();
  job.release();  // the host function owns it now

  // Forward and BackwardData: the results go straight into their slice, disjoint from the
  // GPU's. From here on the application's output is being written.
  constexpr auto kUp = cudaMemcpyHostToDevice;
  if (operation == Operation::kForward && !copy(y_share, s.y.data(), y_bytes, kUp, host_stream))
    return failed();
  if (operation == Operation::kBackwardData &&
      !copy(x_share, s.x.data(), x_bytes, kUp, host_stream))
    return failed();
  if (runtime_.cudaEventRecord(s.host_done.get(), host_stream) != cudaSuccess) return failed();
  if (!partial && runtime_.cudaEventRecord(s.staging_free.get(), host_stream) != cudaSuccess)
    return failed();

  Result result{CUDNN_STATUS_SUCCESS, true};
  if (device_share_) {
    result = device_share_->run(handle, alpha, buffers, workspace, workspace_bytes, beta);
    result.output_touched = true;
  }
  if (runtime_.cudaStreamWaitEvent(stream, s.host_done.get(), 0) != cudaSuccess) return failed();
  if (partial) {
    const bool replace = !device_share_ && !keeps_output;  // dw = the CPU's gradient
    void* target = replace ? buffers.w : workspace;
    if (!copy(target, s.w.data(), w_bytes, kUp, stream)) return failed();
    if (runtime_.cudaEventRecord(s.staging_free.get(), stream) != cudaSuccess) return failed();
    if (!replace) {
      const void* one = cudnn::scaling_one(type);
      const void* into = device_share_ ? one : beta;
      const cudnnStatus_t added = api_.cudnnAddTensor(handle, one, s.flat_w->get(), workspace, into,
                                                      s.flat_w->get(), buffers.w);
      if (added != CUDNN_STATUS_SUCCESS) result.status = added;
    }
  }
  s.staging_used = true;
  return result;
}

}  // namespace ucudnn::shim
