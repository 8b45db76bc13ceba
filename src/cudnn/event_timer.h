#pragma once
// The CUDA-event timing loop of every measurement on the GPU (a kernel's micro-batch in
// cudnn_benchmarker.cc, a whole configuration in configuration_timer.cc): record, run,
// record, wait for the stop event, `repeats` times.
#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

#include "cudnn/cuda_runtime.h"

namespace ucudnn::cudnn {

struct EventTimes {
  enum class Failure {
    kNone,
    kRunFailed,    // `run` returned false: the work itself does not apply
    kNoEvents,     // CUDA events could not be created
    kTimingFailed  // an event could not be waited for or read (the CUDA error is cleared)
  };
  Failure failure = Failure::kNone;
  std::vector<double> sorted_ms;  // one time per repeat, ascending
  // What issuing the work cost the host, per repeat, ascending: `run` itself, timed on the
  // host's clock.
  std::vector<double> sorted_host_ms;
  double median() const { return sorted_ms[sorted_ms.size() / 2]; }
  // Another process's load only adds to a run's host time: the least says what issuing costs.
  double least_host() const { return sorted_host_ms.front(); }
};

// A plan's time on the GPU (the median) and what issuing it costs the host (the least of the
// repeats, least_host), in milliseconds.
struct PlanTiming {
  double gpu_ms = 0;
  double host_ms = 0;
};

// Times `run` (which queues work on `stream`) with events, max(1, repeats) times.
EventTimes time_with_events(const CudaRuntime& runtime, cudaStream_t stream, int repeats,
                            const std::function<bool()>& run);

}  // namespace ucudnn::cudnn
