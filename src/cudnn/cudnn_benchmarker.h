#pragma once
// The GPU as a planner device. Its candidates are the engine configurations cuDNN's heuristics
// offer for the kernel (engine_configurations.h) and those the application runs for it, those
// the kernel's math type and determinism allow, each run through an execution plan finalized at the
// micro-batch's shape; the legacy algorithms only where the library has no graph API, offers no
// configuration, or `engines` is off (UCUDNN_CANDIDATES=algorithms). It measures a candidate at a
// micro-batch with CUDA events on the handle's stream (warm-up, then the median of repeats; far
// slower than a candidate measured before it at the same shape, fewer runs), on
// scratch buffers of its own so that the caller's tensors are never touched, or in the caller's
// buffers when it gives them (Find*Ex, which cuDNN documents may overwrite its output). It never
// holds more workspace than its limit: an algorithm that needs more is not run
// (WorkspaceOverLimit), and one workspace serves every measurement of a kernel. An algorithm cuDNN
// refuses (NOT_SUPPORTED, BAD_PARAM) is "not supported", and so is one whose workspace and the
// micro-batch's tensors are more than the device's whole memory; anything else (memory that
// cannot be allocated now, execution failures, events that fail) throws MeasurementUnavailable:
// nothing to remember.
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/algorithm_exclusion.h"
#include "core/benchmarker.h"
#include "core/early_stop.h"
#include "core/engine_name.h"
#include "cudnn/configuration_sizing.h"
#include "cudnn/convolution_graph.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/device_memory.h"
#include "cudnn/engine_configurations.h"
#include "cudnn/event_timer.h"
#include "cudnn/finalized_plans.h"
#include "cudnn/heuristics_cache.h"

namespace ucudnn::cudnn {

// The caller's tensors at the full batch and its workspace (Find*Ex).
struct CallerBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

struct GpuBenchmarkOptions {
  int warmup = 1;
  int repeats = 3;           // median of these
  EarlyStopRule early_stop;  // core/early_stop.h; the runs taken are the measurement
  std::uint64_t workspace_limit = std::numeric_limits<std::uint64_t>::max();
  std::optional<CallerBuffers> caller;
  bool engines = true;              // engine configurations where the graph API offers them
  bool deterministic_only = false;  // no configuration whose notes say nondeterministic
  // Configurations the application runs for the kernel: candidates where the heuristics do not
  // offer them, under the same rule for numerics (engines only), whatever `benchmark_limit`.
  std::vector<EngineConfiguration> application_engines;
  // At most this many of the configurations offered whose workspace at the full batch (as the
  // heuristics say, else as its plan does) is within `workspace_limit`, the first in the
  // heuristics' order, as PyTorch's cudnn.benchmark_limit; those over it stay (only a micro-batch
  // can run them). 0: every one. Measuring every one was most of a first run's warm-up: replayed
  // on an H200's measurements of ResNet-50 B=64, the first 10 left out half to three quarters
  // of the pairs measured at the full batch and planned within 0.24% of the time planned among all
  // (UCUDNN_BENCHMARK_LIMIT). There cuDNN finalized every configuration offered at the full
  // batch, so none of the N places went to one it refuses.
  std::size_t benchmark_limit = 0;
  // Configurations that do not count towards `benchmark_limit` (UCUDNN_EXCLUDE_ALGORITHMS: they
  // stay listed, for the exclusion to take out and account; nullptr: none).
  const AlgorithmExclusion* excluded = nullptr;
  // The device's answers of cuDNN's heuristics, asked once per kernel (nullptr: asked per
  // benchmarker).
  HeuristicsCache* heuristics = nullptr;
  // Where a configuration's workspace at the full batch (as the heuristics say, else its plan) is
  // over this, its smaller-workspace knob values are candidates too (core/knob_variants.h;
  // UCUDNN_KNOB_VARIANTS). nullopt: only the configurations offered.
  std::optional<std::uint64_t> knob_variants_over;
  // Where the execution plans it times are kept for the kernel's executor (finalized_plans.h;
  // nullptr: dropped once timed).
  FinalizedPlans* kept_plans = nullptr;
  // Whether timing holds the stream (event_timer.h), shared by benchmarkers that measure one at a
  // time on a device (the shim makes one per kernel): where the gate keeps timing out, it stays
  // off for all of them, not for each anew. Null: the benchmarker's own.
  Gating* gating = nullptr;

  static GpuBenchmarkOptions with_repeats(int repeats) {
    GpuBenchmarkOptions options;
    options.repeats = repeats;
    return options;
  }
};

class CudnnBenchmarker final : public Benchmarker {
 public:
  // `fingerprint`: of the handle's device (gpu_fingerprint; computed once per device, since
  // cudaGetDeviceProperties is slow).
  CudnnBenchmarker(const CudnnApi& api, const CudaRuntime& runtime, cudnnHandle_t handle,
                   DeviceFingerprint fingerprint, GpuBenchmarkOptions options = {});

  std::string backend_name() const override { return "cudnn"; }
  // GPU name, compute capability, SM count, memory size, cuDNN and ucudnn versions.
  DeviceFingerprint fingerprint() const override { return fingerprint_; }
  std::vector<std::string> algorithms(const KernelKey& kernel) override;
  // How many configurations offered for `kernel` that fit the limit `benchmark_limit` left out.
  std::size_t left_out_by_benchmark_limit(const KernelKey& kernel) const;
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;

 private:
  Gating& gating() { return options_.gating ? *options_.gating : own_gating_; }
  // x, w and y of the kernel for micro-batches up to `batch` images, reused for each of them.
  struct Scratch {
    DeviceBuffer x, w, y;
    std::int64_t batch = 0;
  };
  // The full batch when the device has room for it (and for the workspaces), else just
  // `micro_batch` images; a size that could not be allocated is not tried again for this kernel.
  Scratch* scratch_for(const KernelKey& kernel, std::int64_t micro_batch);
  // Zeroed tensors of `problem`, or null where the device has no room for them.
  std::unique_ptr<Scratch> allocate_scratch(const ConvolutionProblem& problem, cudaStream_t stream);
  static std::size_t tensor_bytes(const ConvolutionProblem& problem);
  // Whether `bytes` are more than the device's whole memory: what needs them never runs there
  // (and the device's memory size is part of its fingerprint).
  bool larger_than_the_device(std::size_t bytes);
  // A workspace of at least `bytes` (within the limit): the caller's, or one of ours that
  // grows to the largest any algorithm of the kernel needs within the limit.
  void* workspace_for(const KernelKey& kernel, std::size_t bytes);
  // The most any legacy algorithm needs at the full batch within the limit.
  std::size_t largest_legacy_workspace(const KernelKey& kernel) const;
  // Times `run` (which queues one run of `algorithm` needing `bytes` of workspace on the
  // given buffers) after the warm-up.
  template <typename Run>
  std::optional<Measurement> time(const KernelKey& kernel, const std::string& algorithm,
                                  std::int64_t micro_batch, std::size_t bytes, Run run);
  std::optional<Measurement> benchmark_engine(const KernelKey& kernel, const EngineName& engine,
                                              std::int64_t micro_batch);

  const CudnnApi& api_;
  const CudaRuntime& runtime_;
  cudnnHandle_t handle_;
  GpuBenchmarkOptions options_;
  DeviceFingerprint fingerprint_;
  // The engine configurations offered for a kernel (by its text), and the most any of them
  // needs at the full batch within the limit: the first workspace's size.
  // What cuDNN's heuristics offer for the kernel (the device's cache, else asked); none where
  // cuDNN refuses its graph.
  // (Their workspaces sized by plans where cuDNN cannot say them.)
  std::vector<EngineConfiguration> offered(const KernelKey& kernel);
  // The ranges of the knobs of `name`'s engine that size a workspace, read from cuDNN only where
  // `name` sets such a knob (empty otherwise, or where cuDNN cannot say); each engine's once per
  // kernel, on one graph (`read`: what the kernel's reads have found).
  struct KnobRangesRead {
    std::unique_ptr<ConvolutionGraph> graph;
    std::map<std::int64_t, std::vector<KnobRange>> by_engine;
  };
  std::vector<KnobRange> workspace_knobs(const KernelKey& kernel, const EngineName& name,
                                         KnobRangesRead& read) const;
  struct Engines {
    std::vector<std::string> names;
    std::size_t largest_workspace = 0;
    std::size_t left_out = 0;  // by `benchmark_limit`
    // `c`, unless the kernel's numerics forbid it or it is there already; whether it was added.
    bool add(const EngineConfiguration& c, const KernelKey& kernel,
             const GpuBenchmarkOptions& options);
  };
  std::map<std::string, Engines> engines_;
  ConfigurationSizing sizing_;  // plans that said workspaces the heuristics could not
  std::string scratch_key_;
  std::unique_ptr<Scratch> scratch_;
  std::int64_t scratch_failed_at_ = 0;  // the smallest batch of scratch_key_ that did not fit
  bool scratch_exact_ = false;  // scratch_key_'s larger tensors left no room for a workspace
  std::optional<DeviceBuffer> workspace_;
  std::size_t workspace_failed_at_ = 0;  // the smallest workspace that could not be allocated
  std::string workspace_failed_for_;     // for this kernel
  std::size_t device_bytes_ = 0;         // the device's whole memory, once known
  EarlyStop early_stop_;                 // what was measured at each (kernel text, micro-batch)
  Gating own_gating_;                    // where options_.gating is null
};

}  // namespace ucudnn::cudnn
