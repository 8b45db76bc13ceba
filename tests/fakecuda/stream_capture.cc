#include "stream_capture.h"

#include "trace.h"

namespace ucudnn::fakecuda {

cudaError_t StreamCaptures::begin(cudaStream_t stream, cudaStreamCaptureMode mode) {
  if (stream == nullptr || stream == cudaStreamLegacy) return cudaErrorStreamCaptureUnsupported;
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed)
    return cudaErrorInvalidValue;
  std::lock_guard lock(mutex_);
  if (captures_.contains(stream)) return cudaErrorIllegalState;
  captures_.emplace(stream, Capture{});
  trace_line("capture-begin");
  return cudaSuccess;
}

cudaError_t StreamCaptures::end(cudaStream_t stream, cudaGraph_t* graph) {
  if (!graph) return cudaErrorInvalidValue;
  std::lock_guard lock(mutex_);
  auto found = captures_.find(stream);
  if (found == captures_.end()) return cudaErrorIllegalState;
  Capture capture = std::move(found->second);
  captures_.erase(found);
  trace_line("capture-end ok=%d nodes=%zu", capture.invalidated ? 0 : 1, capture.nodes.size());
  if (capture.invalidated) {
    *graph = nullptr;
    return cudaErrorStreamCaptureInvalidated;
  }
  *graph = add_graph(std::move(capture.nodes));
  return cudaSuccess;
}

cudaGraph_t StreamCaptures::add_graph(std::vector<Node> nodes) {
  const auto graph = reinterpret_cast<cudaGraph_t>(new char);
  graphs_.emplace(graph, std::make_shared<Graph>(Graph{std::move(nodes)}));
  return graph;
}

cudaStreamCaptureStatus StreamCaptures::status(cudaStream_t stream) const {
  std::lock_guard lock(mutex_);
  auto found = captures_.find(stream);
  if (found == captures_.end()) return cudaStreamCaptureStatusNone;
  return found->second.invalidated ? cudaStreamCaptureStatusInvalidated
                                   : cudaStreamCaptureStatusActive;
}

bool StreamCaptures::any_active() const {
  std::lock_guard lock(mutex_);
  return !captures_.empty();
}

bool StreamCaptures::capture(cudaStream_t stream, Node node) {
  std::lock_guard lock(mutex_);
  auto found = captures_.find(stream);
  if (found == captures_.end()) return false;
  if (!found->second.invalidated) found->second.nodes.push_back(std::move(node));
  return true;
}

void StreamCaptures::note_event_recorded(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  if (captures_.contains(stream))
    captured_events_.insert(event);
  else
    captured_events_.erase(event);
}

bool StreamCaptures::captured_event(cudaEvent_t event) const {
  std::lock_guard lock(mutex_);
  return captured_events_.contains(event);
}

cudaError_t StreamCaptures::forbid(const char* call) {
  std::lock_guard lock(mutex_);
  if (captures_.empty()) return cudaSuccess;
  for (auto& [stream, capture] : captures_) capture.invalidated = true;
  trace_line("capture-violation call=%s", call);
  return cudaErrorStreamCaptureUnsupported;
}

cudaError_t StreamCaptures::instantiate(cudaGraphExec_t* exec, cudaGraph_t graph) {
  if (!exec) return cudaErrorInvalidValue;
  std::lock_guard lock(mutex_);
  auto found = graphs_.find(graph);
  if (found == graphs_.end()) return cudaErrorInvalidValue;
  *exec = reinterpret_cast<cudaGraphExec_t>(new char);
  execs_.emplace(*exec, found->second);
  return cudaSuccess;
}

cudaError_t StreamCaptures::launch(cudaGraphExec_t exec, std::vector<Node>* nodes) {
  std::shared_ptr<Graph> graph;
  {
    std::lock_guard lock(mutex_);
    auto found = execs_.find(exec);
    if (found == execs_.end()) return cudaErrorInvalidValue;
    graph = found->second;
  }
  trace_line("graph-launch nodes=%zu", graph->nodes.size());
  *nodes = graph->nodes;
  return cudaSuccess;
}

cudaError_t StreamCaptures::create_graph(cudaGraph_t* graph) {
  if (!graph) return cudaErrorInvalidValue;
  std::lock_guard lock(mutex_);
  *graph = add_graph({});
  return cudaSuccess;
}

cudaError_t StreamCaptures::destroy_graph(cudaGraph_t graph) {
  std::lock_guard lock(mutex_);
  if (graphs_.erase(graph) == 0) return cudaErrorInvalidValue;
  delete reinterpret_cast<char*>(graph);
  return cudaSuccess;
}

cudaError_t StreamCaptures::destroy_exec(cudaGraphExec_t exec) {
  std::lock_guard lock(mutex_);
  if (execs_.erase(exec) == 0) return cudaErrorInvalidValue;
  delete reinterpret_cast<char*>(exec);
  return cudaSuccess;
}

}  // namespace ucudnn::fakecuda
