#include "cudnn/cudnn_benchmarker.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "core/knob_variants.h"
#include "cudnn/algorithms.h"
#include "cudnn/backend_descriptor.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/engine_configurations.h"
#include "cudnn/engine_plan.h"
#include "cudnn/event_timer.h"
#include "cudnn/measuring_account.h"
#include "cudnn/micro_batch_descriptors.h"
#include "cudnn/scaling.h"

namespace ucudnn::cudnn {

CudnnBenchmarker::CudnnBenchmarker(const CudnnApi& api, const CudaRuntime& runtime,
                                   cudnnHandle_t handle, DeviceFingerprint fingerprint,
                                   GpuBenchmarkOptions options)
    : api_(api),
      runtime_(runtime),
      handle_(handle),
      options_(options),
      fingerprint_(std::move(fingerprint)),
      early_stop_(options_.early_stop) {}

std::vector<std::string> CudnnBenchmarker::algorithms(const KernelKey& kernel) {
  if (!options_.engines || !has_graph_api(backend_api())) return algorithm_names(kernel.operation);
  const std::string key = kernel.to_string();
  auto found = engines_.find(key);
  if (found == engines_.end()) {
    Engines engines;
    KnobRangesRead knob_ranges;
    // `c`, and where it is over the limit its smaller-workspace knob values.
    const auto add = [&](const EngineConfiguration& c) {
      const bool added = engines.add(c, kernel, options_);
      if (options_.knob_variants_over && c.workspace_bytes &&
          *c.workspace_bytes > *options_.knob_variants_over)
        for (auto& variant :
             smaller_workspace_variants(c.name, workspace_knobs(kernel, c.name, knob_ranges)))
          engines.add({std::move(variant), c.notes, std::nullopt}, kernel, options_);
      return added;
    };
    std::size_t fitting = 0;
    std::vector<std::string> left_out;
    for (const auto& c : offered(kernel)) {
      // Only a micro-batch can run one over the limit (or one cuDNN refuses at the full
      // batch); an excluded one is never measured.
      const bool counts =
          c.workspace_bytes && *c.workspace_bytes <= options_.workspace_limit &&
          !(options_.excluded && options_.excluded->excludes(backend_name(), c.name.to_string()));
      if (counts && options_.benchmark_limit && fitting >= options_.benchmark_limit) {
        if (allowed(c.notes, kernel.problem.math_type, options_.deterministic_only))
          left_out.push_back(c.name.to_string());
        continue;
      }
      if (add(c) && counts) ++fitting;
    }
    if (engines.names.empty()) {
      engines.names = algorithm_names(kernel.operation);
      engines.largest_workspace = largest_legacy_workspace(kernel);
    }
    for (const auto& c : options_.application_engines) add(c);
    engines.left_out = static_cast<std::size_t>(
        std::count_if(left_out.begin(), left_out.end(), [&](const std::string& name) {
          return std::find(engines.names.begin(), engines.names.end(), name) == engines.names.end();
        }));
    sizing_.keep_only(engines.names);
    found = engines_.emplace(key, std::move(engines)).first;
  }
  return found->second.names;
}

std::vector<EngineConfiguration> CudnnBenchmarker::offered(const KernelKey& kernel) {
  const std::string key = kernel.to_string();
  if (options_.heuristics)
    if (auto known = options_.heuristics->find(key)) return std::move(*known);
  std::vector<EngineConfiguration> offered;
  bool complete = false;
  try {
    // The heuristics at the full batch; a configuration that does not finalize at some
    // micro-batch is simply not measured there.
    const PhaseTime heuristics(MeasuringPhase::kHeuristics);
    count_heuristics_query();
    const ConvolutionGraph graph(handle_, kernel.operation, kernel.problem, 1, 0);
    offered = engine_configurations(graph, &complete);
    sizing_.size(handle_, kernel, offered);
  } catch (const std::exception&) {
    // A graph cuDNN refuses: none (the legacy algorithms are the candidates).
  }
  // A refusal, or an answer a passing failure may have cut short, is asked again.
  if (options_.heuristics && complete && !offered.empty()) options_.heuristics->put(key, offered);
  return offered;
}

std::vector<KnobRange> CudnnBenchmarker::workspace_knobs(const KernelKey& kernel,
                                                         const EngineName& name,
                                                         KnobRangesRead& read) const {
  const bool sets_one = std::any_of(name.knobs.begin(), name.knobs.end(),
                                    [](const auto& knob) { return sizes_workspace(knob.first); });
  if (!sets_one) return {};
  if (const auto known = read.by_engine.find(name.engine); known != read.by_engine.end())
    return known->second;
  std::vector<KnobRange> ranges;
  try {
    const PhaseTime heuristics(MeasuringPhase::kHeuristics);
    if (!read.graph)
      read.graph =
          std::make_unique<ConvolutionGraph>(handle_, kernel.operation, kernel.problem, 1, 0);
    ranges = workspace_knob_ranges(*read.graph, name.engine);
  } catch (const std::exception&) {
    // A graph cuDNN refuses: no variants.
  }
  read.by_engine.emplace(name.engine, ranges);
  return ranges;
}

std::size_t CudnnBenchmarker::left_out_by_benchmark_limit(const KernelKey& kernel) const {
  const auto found = engines_.find(kernel.to_string());
  return found == engines_.end() ? 0 : found->second.left_out;
}

bool CudnnBenchmarker::Engines::add(const EngineConfiguration& c, const KernelKey& kernel,
                                    const GpuBenchmarkOptions& options) {
  if (!allowed(c.notes, kernel.problem.math_type, options.deterministic_only)) return false;
  const std::string name = c.name.to_string();
  if (std::find(names.begin(), names.end(), name) != names.end()) return false;
  names.push_back(name);
  if (c.workspace_bytes && *c.workspace_bytes <= options.workspace_limit)
    largest_workspace = std::max<std::size_t>(largest_workspace, *c.workspace_bytes);
  return true;
}

namespace {

// cuDNN's answer that the algorithm does not apply; any other failure may be transient.
bool refusal(cudnnStatus_t status) {
  return status == CUDNN_STATUS_NOT_SUPPORTED || status == CUDNN_STATUS_BAD_PARAM;
}

}  // namespace

std::size_t CudnnBenchmarker::largest_legacy_workspace(const KernelKey& kernel) const {
  std::size_t want = 0;
  try {
    const MicroBatchDescriptors d(api_, kernel.problem, kernel.problem.batch());
    for (const auto& name : algorithm_names(kernel.operation)) {
      std::size_t need = 0;
      const auto value = algorithm_value(kernel.operation, name);
      if (value &&
          workspace_size(api_, handle_, kernel.operation,
                         {d.x.get(), d.w.get(), d.convolution.get(), d.y.get()}, *value,
                         &need) == CUDNN_STATUS_SUCCESS &&
          need <= options_.workspace_limit)
        want = std::max(want, need);
    }
  } catch (const std::exception&) {
  }
  return want;
}

void* CudnnBenchmarker::workspace_for(const KernelKey& kernel, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (options_.caller && bytes <= options_.caller->workspace_bytes)
    return options_.caller->workspace;
  if (workspace_ && workspace_->size() >= bytes) return workspace_->data();
  // The first allocation takes the most any algorithm needs at the full batch within the
  // limit (host-side queries), so that one workspace serves the kernel.
  std::size_t want = bytes;
  if (const auto found = engines_.find(kernel.to_string()); found != engines_.end())
    want = std::max(want, found->second.largest_workspace);
  else
    want = std::max(want, largest_legacy_workspace(kernel));
  // Short of memory, the exact size may still fit; a size that failed is not tried again for
  // this kernel. For another it may fit: beside smaller tensors, or once the application has
  // freed what it held.
  if (workspace_failed_at_ && workspace_failed_for_ != kernel.to_string()) workspace_failed_at_ = 0;
  for (const std::size_t size : {want, bytes}) {
    if (workspace_failed_at_ && size >= workspace_failed_at_) continue;
    workspace_.reset();  // the old one goes first: never two at once
    workspace_ = DeviceBuffer::allocate(runtime_, size);
    if (workspace_) return workspace_->data();
    workspace_failed_at_ = size;
    workspace_failed_for_ = kernel.to_string();
  }
  return nullptr;
}

CudnnBenchmarker::Scratch* CudnnBenchmarker::scratch_for(const KernelKey& kernel,
                                                         std::int64_t micro_batch) {
  // A micro-batch's tensors are the full problem's with a smaller N and the same strides:
  // scratch for b images serves every micro-batch up to b.
  const std::string key = kernel.to_string();
  if (scratch_key_ != key) {
    scratch_.reset();
    scratch_key_ = key;
    scratch_failed_at_ = 0;
    scratch_exact_ = false;
  }
  if (scratch_ && scratch_->batch >= micro_batch) return scratch_.get();
  cudaStream_t stream = nullptr;
  api_.cudnnGetStream(handle_, &stream);
  const std::int64_t full = kernel.problem.batch();
  for (const std::int64_t batch : {scratch_exact_ ? micro_batch : full, micro_batch}) {
    if (scratch_failed_at_ && batch >= scratch_failed_at_) continue;
    scratch_.reset();  // the old one goes first: never two at once
    auto made = allocate_scratch(kernel.problem.with_batch(batch), stream);
    if (!made && workspace_) {  // the workspace kept from the last kernel may be in the way
      workspace_.reset();
      made = allocate_scratch(kernel.problem.with_batch(batch), stream);
    }
    if (!made) {
      scratch_failed_at_ = batch;
      continue;
    }
    scratch_ = std::move(made);
    return scratch_.get();
  }
  return nullptr;
}

std::size_t CudnnBenchmarker::tensor_bytes(const ConvolutionProblem& p) {
  return (p.x.span_elements() + p.w.span_elements() + p.y.span_elements()) *
         element_size(p.data_type);
}

bool CudnnBenchmarker::larger_than_the_device(std::size_t bytes) {
  if (device_bytes_ == 0) {
    std::size_t free = 0;
    if (runtime_.cudaMemGetInfo(&free, &device_bytes_) != cudaSuccess) {
      runtime_.cudaGetLastError();
      device_bytes_ = 0;
    }
    if (device_bytes_ == 0) return false;  // cannot tell: maybe another time
  }
  return bytes > device_bytes_;
}

std::unique_ptr<CudnnBenchmarker::Scratch> CudnnBenchmarker::allocate_scratch(
    const ConvolutionProblem& p, cudaStream_t stream) {
  const std::size_t element = element_size(p.data_type);
  auto x = DeviceBuffer::allocate(runtime_, p.x.span_elements() * element);
  auto w = x ? DeviceBuffer::allocate(runtime_, p.w.span_elements() * element) : std::nullopt;
  auto y = w ? DeviceBuffer::allocate(runtime_, p.y.span_elements() * element) : std::nullopt;
  if (!x || !w || !y) return nullptr;
  // Zeros, not leftovers: NaN or denormal garbage could change an algorithm's speed.
  for (const DeviceBuffer* b : {&*x, &*w, &*y})
    if (b->size()) runtime_.cudaMemsetAsync(b->data(), 0, b->size(), stream);
  return std::make_unique<Scratch>(Scratch{std::move(*x), std::move(*w), std::move(*y), p.batch()});
}

template <typename Run>
std::optional<Measurement> CudnnBenchmarker::time(const KernelKey& kernel,
                                                  const std::string& algorithm,
                                                  std::int64_t micro_batch, std::size_t bytes,
                                                  Run run_on) {
  if (bytes > options_.workspace_limit) throw WorkspaceOverLimit(bytes);
  ConvolutionBuffers buffers;
  std::optional<PhaseTime> phase(std::in_place, MeasuringPhase::kAllocation);
  if (options_.caller) {
    buffers = {options_.caller->x, options_.caller->w, options_.caller->y};
  } else if (Scratch* scratch = scratch_for(kernel, micro_batch)) {
    buffers = {scratch->x.data(), scratch->w.data(), scratch->y.data()};
  } else {
    if (larger_than_the_device(tensor_bytes(kernel.problem.with_batch(micro_batch))))
      return std::nullopt;  // never on this device
    // The application may hold the memory now; another run will have it.
    throw MeasurementUnavailable("no device memory for the tensors of " + kernel.to_string());
  }
  void* workspace = workspace_for(kernel, bytes);
  if (bytes > 0 && !workspace && !options_.caller && scratch_->batch > micro_batch) {
    // A larger batch's tensors may be what leaves no room: each micro-batch's alone, then.
    scratch_exact_ = true;
    scratch_.reset();
    workspace_failed_at_ = 0;
    if (Scratch* scratch = scratch_for(kernel, micro_batch)) {
      buffers = {scratch->x.data(), scratch->w.data(), scratch->y.data()};
      workspace = workspace_for(kernel, bytes);
    }
  }
  if (bytes > 0 && !workspace) {
    // With the micro-batch's tensors beside it, at the least.
    if (larger_than_the_device(bytes + tensor_bytes(kernel.problem.with_batch(micro_batch))))
      return std::nullopt;
    throw MeasurementUnavailable("no device memory to benchmark " + algorithm + " at " +
                                 std::to_string(micro_batch) + " images");
  }
  phase.emplace(MeasuringPhase::kRuns);
  cudnnStatus_t last = CUDNN_STATUS_SUCCESS;
  auto run = [&] {
    last = run_on(buffers, workspace);
    return last == CUDNN_STATUS_SUCCESS;
  };
  auto failed_run = [&]() -> std::optional<Measurement> {
    if (refusal(last)) return std::nullopt;
    throw MeasurementUnavailable(algorithm + " failed to run now");
  };
  cudaStream_t stream = nullptr;
  api_.cudnnGetStream(handle_, &stream);
  bool ungated = false;  // some run timed with the host's issuing in it
  // `n` runs timed into `times`; false where a run failed (the work does not apply). A first run
  // (`cold`) is timed without a gate: loading its kernels may wait for the stream (CUDA's lazy
  // loading), and the hopeless rule it serves is far above the host's issuing.
  auto timed = [&](int n, std::vector<double>& times, bool cold = false) {
    Gating first_run{false};
    const auto t = time_with_events(runtime_, stream, n, run, cold ? &first_run : &gating());
    count_gate_timeouts(t.gates_timed_out);
    switch (t.failure) {
      case EventTimes::Failure::kNone:
        if (!cold) ungated |= t.ungated > 0;
        times.insert(times.end(), t.sorted_ms.begin(), t.sorted_ms.end());
        return true;
      case EventTimes::Failure::kRunFailed:
        return false;
      case EventTimes::Failure::kNoEvents:
        throw MeasurementUnavailable("cannot create CUDA events");
      case EventTimes::Failure::kTimingFailed:
        break;
    }
    throw MeasurementUnavailable("cannot time " + algorithm + " with CUDA events");
  };
  const std::pair<std::string, std::int64_t> shape{kernel.to_string(), micro_batch};
  auto measured = [&](std::vector<double> times, bool stopped_early) {
    count_measured_pair(stopped_early, ungated);
    std::sort(times.begin(), times.end());
    const Measurement m{times[times.size() / 2], bytes, times.front(), times.back(),
                        static_cast<int>(times.size())};
    early_stop_.measured(shape, bytes, m.time_ms);
    return m;
  };
  // The fastest candidate of this shape that needs no more workspace: one stopped at its first
  // timed run is dominated by it (slower, and more workspace), at every limit.
  const std::optional<double> bound = early_stop_.bound(shape, bytes);
  // The fastest measured at this shape: every candidate measured is within this measuring's
  // limit (one over it is refused above). One hopeless beside it stops after its warm-up run,
  // however little workspace it needs.
  const std::optional<double> fastest =
      early_stop_.bound(shape, std::numeric_limits<std::uint64_t>::max());
  std::vector<double> times;
  for (int i = 0; i < options_.warmup; ++i) {
    if (i > 0 || !fastest) {
      if (!run()) return failed_run();
      continue;
    }
    if (!timed(1, times, true)) return failed_run();
    const double first = times.front();
    times.clear();
    if (!early_stop_.hopeless(first, *fastest)) continue;
    // Dominated, its warm-up run is its measurement. Else a tighter limit's plan may choose it,
    // and reads its time: one timed run, past what a first run loads.
    if (bound && early_stop_.hopeless(first, *bound)) return measured({first}, true);
    if (!timed(1, times)) return failed_run();
    return measured(std::move(times), true);
  }
  const int repeats = std::max(1, options_.repeats);
  if (!timed(bound ? 1 : repeats, times)) return failed_run();
  if (bound && repeats > 1) {
    if (early_stop_.slow(times.front(), *bound)) return measured(std::move(times), true);
    if (!timed(repeats - 1, times)) return failed_run();
  }
  return measured(std::move(times), false);
}

std::optional<Measurement> CudnnBenchmarker::benchmark_engine(const KernelKey& kernel,
                                                              const EngineName& engine,
                                                              std::int64_t micro_batch) {
  const KernelKey shape = kernel.with_batch(micro_batch);
  std::unique_ptr<EnginePlan> plan, accumulating;
  std::uint64_t bytes = 0;
  try {
    const PhaseTime building(MeasuringPhase::kPlans);
    // At the full batch, the plan that said the configuration's workspace where the
    // heuristics could not.
    if (micro_batch == kernel.problem.batch()) plan = sizing_.take(kernel, engine);
    if (!plan)
      plan = std::make_unique<EnginePlan>(handle_, kernel.operation, shape.problem, engine, 1, 0);
    bytes = plan->workspace_bytes();
    // Below the batch, later micro-batches may add to the output (beta = 1): the configuration
    // is a candidate there only if cuDNN finalizes that too, with the larger workspace.
    if (later_micro_batches_accumulate(kernel.operation) && micro_batch < kernel.problem.batch()) {
      accumulating =
          std::make_unique<EnginePlan>(handle_, kernel.operation, shape.problem, engine, 1, 1);
      bytes = std::max(bytes, accumulating->workspace_bytes());
    }
  } catch (const EngineRefused&) {
    return std::nullopt;  // not a candidate at this shape
  }
  auto measurement = time(kernel, engine.to_string(), micro_batch, static_cast<std::size_t>(bytes),
                          [&](const ConvolutionBuffers& buffers, void* workspace) {
                            return plan->execute(handle_, buffers, workspace);
                          });
  // The plans of a measured candidate are the ones its executor runs at this shape, where a
  // limit may choose it (one that another beats with no more workspace never).
  if (measurement && options_.kept_plans)
    options_.kept_plans->keep_measured(shape, engine, measurement->time_ms,
                                       measurement->workspace_bytes, std::move(plan),
                                       std::move(accumulating));
  return measurement;
}

std::optional<Measurement> CudnnBenchmarker::benchmark(const KernelKey& kernel,
                                                       const std::string& algorithm,
                                                       std::int64_t micro_batch) {
  if (micro_batch <= 0 || micro_batch > kernel.problem.batch()) return std::nullopt;
  if (const auto engine = EngineName::parse(algorithm)) {
    if (!has_graph_api(backend_api())) return std::nullopt;
    return benchmark_engine(kernel, *engine, micro_batch);
  }
  const auto value = algorithm_value(kernel.operation, algorithm);
  if (!value) return std::nullopt;
  try {
    std::optional<PhaseTime> sizing(std::in_place, MeasuringPhase::kPlans);
    const MicroBatchDescriptors d(api_, kernel.problem, micro_batch);
    const ConvolutionDescriptors descriptors{d.x.get(), d.w.get(), d.convolution.get(), d.y.get()};
    std::size_t bytes = 0;
    const auto status =
        workspace_size(api_, handle_, kernel.operation, descriptors, *value, &bytes);
    sizing.reset();
    if (status != CUDNN_STATUS_SUCCESS) {
      if (refusal(status)) return std::nullopt;
      throw MeasurementUnavailable("cuDNN cannot size the workspace of " + algorithm + " now");
    }
    const void* alpha = scaling_one(kernel.problem.data_type);
    const void* beta = scaling_zero(kernel.problem.data_type);
    return time(kernel, algorithm, micro_batch, bytes,
                [&](const ConvolutionBuffers& buffers, void* workspace) {
                  return convolve(api_, handle_, kernel.operation, *value, alpha, descriptors,
                                  buffers, workspace, bytes, beta);
                });
  } catch (const MeasurementUnavailable&) {
    throw;
  } catch (const WorkspaceOverLimit&) {
    throw;
  } catch (const std::exception&) {
    // A descriptor cuDNN refuses at this micro-batch: the algorithm does not apply.
    return std::nullopt;
  }
}

}  // namespace ucudnn::cudnn
