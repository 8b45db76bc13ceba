// The CUDA runtime double (cudart_api.cc): device and stream synchronization, streams, stream
// capture and graphs, and events, on the virtual clocks and in stream order.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "cudart_state.h"
#include "fakecuda_hooks.h"
#include "trace.h"

using namespace ucudnn::fakecuda;
using namespace ucudnn::fakecuda::cudart;

extern "C" {

cudaError_t cudaDeviceSynchronize(void) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (cudaError_t forbidden = runtime().captures.forbid("cudaDeviceSynchronize"))
    return report(forbidden);
  trace_line("sync kind=device");
  runtime().order.finish_all();
  runtime().clocks.host_waits_for_all();
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  if (!pStream) return report(cudaErrorInvalidValue);
  *pStream = runtime().clocks.create_stream();
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  if (flags & ~static_cast<unsigned int>(cudaStreamNonBlocking))
    return report(cudaErrorInvalidValue);
  if (cudaError_t status = cudaStreamCreate(pStream); status != cudaSuccess) return status;
  if (flags & cudaStreamNonBlocking) runtime().order.set_non_blocking(*pStream);
  return cudaSuccess;
}

// The stream's queued work still completes, as CUDA's.
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread ||
      !valid_stream(stream))
    return report(cudaErrorInvalidResourceHandle);
  runtime().order.finish_stream(stream);
  runtime().order.forget_stream(stream);
  return report(runtime().clocks.destroy_stream(stream));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.status(stream) != cudaStreamCaptureStatusNone)
    return report(runtime().captures.forbid("cudaStreamSynchronize"));
  trace_line("sync kind=stream");
  runtime().order.finish_stream(stream);
  runtime().clocks.host_waits_for_stream(stream);
  return cudaSuccess;
}

// Work still queued: cudaErrorNotReady (not an error: the last error stays), and the work
// proceeds, so that a host polling until cudaSuccess gets there.
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.status(stream) != cudaStreamCaptureStatusNone)
    return report(runtime().captures.forbid("cudaStreamQuery"));
  if (!runtime().order.stream_pending(stream)) return cudaSuccess;
  runtime().order.finish_stream(stream);
  return cudaErrorNotReady;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  return report(runtime().captures.begin(stream, mode));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  return report(runtime().captures.end(stream, pGraph));
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  enum cudaStreamCaptureStatus* pCaptureStatus) {
  if (!pCaptureStatus) return report(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  // As CUDA: asking about the legacy stream while another stream captures is an error.
  if ((stream == nullptr || stream == cudaStreamLegacy) && runtime().captures.any_active())
    return report(cudaErrorStreamCaptureImplicit);
  *pCaptureStatus = runtime().captures.status(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                     const cudaGraphNode_t** dependencies_out,
                                     const cudaGraphEdgeData** edgeData_out,
                                     size_t* numDependencies_out) {
  if (cudaError_t status = cudaStreamIsCapturing(stream, captureStatus_out); status != cudaSuccess)
    return status;
  if (id_out) *id_out = reinterpret_cast<std::uintptr_t>(stream);
  if (graph_out) *graph_out = nullptr;
  if (dependencies_out) *dependencies_out = nullptr;
  if (edgeData_out) *edgeData_out = nullptr;
  if (numDependencies_out) *numDependencies_out = 0;
  return cudaSuccess;
}

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  if (flags != 0) return report(cudaErrorInvalidValue);
  return report(runtime().captures.create_graph(pGraph));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags) {
  if (flags != 0) return report(cudaErrorInvalidValue);
  return report(runtime().captures.instantiate(pGraphExec, graph));
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  std::vector<StreamCaptures::Node> nodes;
  if (cudaError_t status = runtime().captures.launch(graphExec, &nodes); status != cudaSuccess)
    return report(status);
  for (const auto& node : nodes)
    if (node.account) node.account();
  runtime().order.enqueue(stream, [nodes] {
    for (const auto& node : nodes) node.compute();
  });
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  return report(runtime().captures.destroy_exec(graphExec));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return report(runtime().captures.destroy_graph(graph));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (flags != 0 && flags != cudaEventWaitExternal) return report(cudaErrorInvalidValue);
  if (cudaError_t status = runtime().clocks.wait(stream, event); status != cudaSuccess)
    return report(status);
  runtime().order.wait(stream, event);
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (!event) return report(cudaErrorInvalidValue);
  constexpr unsigned int kKnown =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (flags & ~kKnown) return report(cudaErrorInvalidValue);
  *event = runtime().clocks.create_event((flags & cudaEventDisableTiming) == 0);
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (cudaError_t status = runtime().clocks.record(event, stream); status != cudaSuccess)
    return report(status);
  runtime().captures.note_event_recorded(event, stream);
  if (runtime().captures.status(stream) == cudaStreamCaptureStatusNone)
    runtime().order.record(event, stream);
  return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if (flags != 0 && flags != cudaEventRecordExternal) return report(cudaErrorInvalidValue);
  return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!runtime().clocks.is_event(event)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.captured_event(event))
    return report(runtime().captures.forbid("cudaEventSynchronize"));
  trace_line("sync kind=event");
  runtime().order.finish_event(event);
  runtime().clocks.host_waits_for_event(event);
  return cudaSuccess;
}

// As cudaStreamQuery: cudaErrorNotReady while the event's work is queued, which then proceeds.
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!runtime().clocks.is_event(event)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.captured_event(event))
    return report(runtime().captures.forbid("cudaEventQuery"));
  if (!runtime().order.event_pending(event)) return cudaSuccess;
  runtime().order.finish_event(event);
  return cudaErrorNotReady;
}

// Both events must have completed, as CUDA's (cudaErrorNotReady otherwise).
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return report(cudaErrorInvalidValue);
  if (runtime().captures.captured_event(start) || runtime().captures.captured_event(end))
    return report(runtime().captures.forbid("cudaEventElapsedTime"));
  float value = 0;
  if (cudaError_t status = runtime().clocks.elapsed(&value, start, end); status != cudaSuccess)
    return report(status);
  if (runtime().order.event_pending(start) || runtime().order.event_pending(end))
    return cudaErrorNotReady;
  *ms = value;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (cudaError_t status = runtime().clocks.destroy_event(event); status != cudaSuccess)
    return report(status);
  runtime().order.forget_event(event);
  return cudaSuccess;
}

}  // extern "C"
