#pragma once
// A CPU/GPU hybrid plan made runnable (core/hybrid_split.h): the GPU computes the batch's
// first samples with its WR configuration while the CPU backend computes the last ones, and
// the call returns without the host waiting for either.
//
// On the handle's stream S and a stream of its own, H:
//   S: record `start`                 H: wait `start` (and the previous call's staging use)
//   S: the GPU's micro-batches        H: copy the share's inputs to pinned staging
//                                     H: host function: the CPU computes into staging
//                                     H: copy the results into their slice (Forward,
//                                        BackwardData); record `host_done`
//   S: wait `host_done`; BackwardFilter only: copy the partial gradient into the workspace
//      and add it to dw (the caller's beta where the GPU had no share, else 1)
// The application's later work on S sees both shares. Staging buffers, the stream and the
// events are made once, with the plan. While S captures a CUDA graph (the CPU cannot be
// captured) and after a host-side failure, the whole batch runs on the GPU's own plan, which
// is what this class is beside the split.
#include <atomic>
#include <memory>
#include <optional>

#include "core/host_backend.h"
#include "cudnn/descriptors.h"
#include "cudnn/device_memory.h"
#include "cudnn/plan_executor.h"

namespace ucudnn::shim {

struct HostShareTimes;  // hybrid_executor.cc

class HybridExecutor final : public cudnn::PlanExecutor {
 public:
  // `device_only`: the GPU's WR configuration for the whole batch; `split`: the hybrid one
  // (with an offloaded share). Throws std::invalid_argument for a split that does not fit the
  // kernel or that the host cannot run, std::runtime_error when staging, stream or events
  // cannot be had. The GPU's execution plans are shared with `kept` where it holds them
  // (cudnn/finalized_plans.h).
  HybridExecutor(const cudnn::CudnnApi& api, const cudnn::CudaRuntime& runtime,
                 cudnnHandle_t handle, const KernelKey& kernel, Configuration device_only,
                 Configuration split, HostBackend& host, cudnn::FinalizedPlans* kept = nullptr);
  ~HybridExecutor() override;

  const Configuration& configuration() const override { return split_; }
  std::uint64_t workspace_bytes() const override { return workspace_bytes_; }
  Result run(cudnnHandle_t handle, const void* alpha, const cudnn::ConvolutionBuffers& buffers,
             void* workspace, std::size_t workspace_bytes, const void* beta) const override;
  // The median time the host functions took computing the CPU's share (copies not included)
  // over the last calls whose share ran; nullopt before one did. To compare with the plan's
  // T_cpu(b_c), which was measured with the host otherwise idle.
  std::optional<double> median_host_share_ms() const;

 private:
  struct Staging;
  // The split's work on the stream; nullopt: nothing was queued (the caller runs the GPU's
  // plan instead).
  std::optional<Result> run_split(cudnnHandle_t handle, cudaStream_t stream, const void* alpha,
                                  const cudnn::ConvolutionBuffers& buffers, void* workspace,
                                  std::size_t workspace_bytes, const void* beta) const;

  const cudnn::CudnnApi& api_;
  const cudnn::CudaRuntime& runtime_;
  Configuration split_;
  HostBackend& host_;
  KernelKey host_kernel_;  // the kernel at the host's share
  Configuration host_configuration_;
  std::int64_t device_samples_ = 0;
  std::unique_ptr<cudnn::PlanExecutor> device_share_;  // null when the GPU has no share
  std::unique_ptr<Staging> staging_;
  std::uint64_t workspace_bytes_ = 0;
  // A host-side failure turns the split off for later calls; shared with the host functions
  // in flight, which may outlive a call but never the process's plugin.
  std::shared_ptr<std::atomic<bool>> host_failed_;
  std::shared_ptr<HostShareTimes> host_times_;  // likewise shared with the host functions
};

}  // namespace ucudnn::shim
