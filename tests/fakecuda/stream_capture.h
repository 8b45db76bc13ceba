#pragma once
// CUDA stream capture in the runtime double, strict as CUDA's global capture mode: between
// cudaStreamBeginCapture and cudaStreamEndCapture, work issued to the stream is recorded into
// a graph, not run; a call CUDA forbids during a global-mode capture (allocation, free,
// synchronous copy, synchronization, reading a captured event) fails with
// cudaErrorStreamCaptureUnsupported and invalidates every capture in progress, so that
// cudaStreamEndCapture reports cudaErrorStreamCaptureInvalidated. A launched graph issues its
// recorded work, in order, to the launching stream.
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ucudnn::fakecuda {

class StreamCaptures {
 public:
  using Work = std::function<void()>;
  // What a kernel does to memory, and what it costs (the virtual clock and trace): the cost
  // is taken when work is issued, the memory effect when the stream gets to it.
  struct Node {
    Work compute;
    Work account;
  };

  cudaError_t begin(cudaStream_t stream, cudaStreamCaptureMode mode);
  cudaError_t end(cudaStream_t stream, cudaGraph_t* graph);
  cudaStreamCaptureStatus status(cudaStream_t stream) const;
  bool any_active() const;

  // Records `node` when `stream` captures (true: the caller must not run it now).
  bool capture(cudaStream_t stream, Node node);
  // An event recorded by a capturing stream is a graph node: it cannot be waited for or timed.
  void note_event_recorded(cudaEvent_t event, cudaStream_t stream);
  bool captured_event(cudaEvent_t event) const;

  // A call CUDA forbids while any stream captures in global mode: invalidates the captures
  // and returns the error to give (cudaSuccess when nothing captures).
  cudaError_t forbid(const char* call);

  // An empty graph (cudaGraphCreate), for nodes added to it later.
  cudaError_t create_graph(cudaGraph_t* graph);
  cudaError_t instantiate(cudaGraphExec_t* exec, cudaGraph_t graph);
  // The launched graph's nodes, for the caller to issue.
  cudaError_t launch(cudaGraphExec_t exec, std::vector<Node>* nodes);
  cudaError_t destroy_graph(cudaGraph_t graph);
  cudaError_t destroy_exec(cudaGraphExec_t exec);

 private:
  struct Capture {
    bool invalidated = false;
    std::vector<Node> nodes;
  };
  struct Graph {
    std::vector<Node> nodes;
  };
  // A new graph of `nodes`, under the lock.
  cudaGraph_t add_graph(std::vector<Node> nodes);

  mutable std::mutex mutex_;
  std::unordered_map<cudaStream_t, Capture> captures_;
  std::unordered_set<cudaEvent_t> captured_events_;
  std::unordered_map<cudaGraph_t, std::shared_ptr<Graph>> graphs_;
  std::unordered_map<cudaGraphExec_t, std::shared_ptr<Graph>> execs_;
};

}  // namespace ucudnn::fakecuda
