#pragma once
// The CUDA-event timing loop of every measurement on the GPU (a kernel's micro-batch in
// cudnn_benchmarker.cc, a whole configuration in configuration_timer.cc): behind a gate
// (stream_gate.h) record, run, record; open the gate and wait for the stop event, `repeats`
// times. The times are the GPU's work alone, as a running application's queue gives it: not the
// host's issuing of it.
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
  // Repeats whose gate opened by itself, each timed again without one; repeats timed without a
  // gate (after one opened by itself, or where none could be queued): their times include the
  // host's issuing.
  int gates_timed_out = 0;
  int ungated = 0;
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
  // As EventTimes says them: repeats timed without holding the stream, gates that timed out.
  int ungated = 0;
  int gates_timed_out = 0;
};

// Whether timing holds the stream while each repeat is issued. A gate that opens by itself (the
// work waited for its own stream, or the host stalled past the gate's timeout) costs its repeat,
// which is timed again without one; after `timeouts_left` of them the gate is off for every later
// repeat of whoever keeps the setting (a benchmarker keeps one, so that work that waits for its
// stream costs a few timeouts, not one per measurement, while one stall of a loaded host does not
// turn it off). `enabled = false`: never held (a first run, whose loading may wait for the
// stream; the host-device link's probe, whose latency is the one the host sees).
struct Gating {
  bool enabled = true;
  int timeouts_left = 3;
};

// Times `run` (which queues work on `stream`) with events, max(1, repeats) times. `gating`:
// whoever keeps the setting; null: one of this call's own, off after one timeout.
EventTimes time_with_events(const CudaRuntime& runtime, cudaStream_t stream, int repeats,
                            const std::function<bool()>& run, Gating* gating = nullptr);

}  // namespace ucudnn::cudnn
