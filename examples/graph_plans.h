#pragma once
// graph_conv's execution plans once built: what a layer's operation runs (a plan, its engine
// configuration and workspace), how one execution goes (a variant pack built, finalized,
// executed and destroyed per run, as PyTorch does; or a native CUDA graph populated and
// launched), and --benchmark's timing of every plan that finalized, as
// torch.backends.cudnn.benchmark times them.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "checked_calls.h"
#include "graph_building.h"

namespace ucudnn::examples {

// One layer's operation as an execution plan, its workspace, and the uids it reads and writes.
struct Candidate {
  Descriptor plan = nullptr;
  Descriptor configuration = nullptr;  // the plan's, from the heuristics
  int64_t engine = -1;
};

struct Plan {
  Descriptor plan = nullptr;
  Descriptor configuration = nullptr;
  int64_t workspace = 0;  // allocated at `buffer`; with --benchmark, the largest candidate's
  void* buffer = nullptr;
  int64_t engine = -1;
  std::vector<Descriptor> owned;      // everything the plan was built from
  std::vector<Candidate> candidates;  // --benchmark: every plan that finalized, timed later
};

// The workspace the plan reports, which its engine configuration must report too (cudnn-frontend
// v1 reads it there).
inline int64_t workspace_of(const Candidate& c) {
  int64_t got = 0, plan_bytes = -1, configuration_bytes = -1;
  CHECK_CUDNN(cudnnBackendGetAttribute(c.plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                       CUDNN_TYPE_INT64, 1, &got, &plan_bytes));
  CHECK_CUDNN(cudnnBackendGetAttribute(c.configuration, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE,
                                       CUDNN_TYPE_INT64, 1, &got, &configuration_bytes));
  if (configuration_bytes != plan_bytes)
    die(__FILE__, __LINE__, "reading the workspace", configuration_bytes,
        "the plan and its engine configuration report different workspaces");
  return plan_bytes;
}

// How each execution's variant pack is built.
struct PackStyle {
  // --packs-elsewhere: built, and destroyed, each on a thread of its own that then ends.
  bool elsewhere = false;
  // --pack-intermediates: CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES set too (the workspace), as an
  // application that passes cuDNN more than its tensors.
  bool intermediates = false;
};

// Runs `step` on a thread of its own and waits for it (--packs-elsewhere), else right here.
template <typename Step>
inline void on_thread(bool elsewhere, Step step) {
  if (!elsewhere) return step();
  std::thread thread(step);
  thread.join();
}

// A variant pack of the plan's workspace and the given tensors, finalized.
inline Descriptor variant_pack(const Plan& plan, const std::vector<int64_t>& uids,
                               const std::vector<void*>& pointers, bool intermediates = false) {
  Descriptor pack = create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids);
  set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers);
  set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR,
      std::vector<void*>{plan.buffer});
  if (intermediates)
    set(pack, CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES, CUDNN_TYPE_VOID_PTR,
        std::vector<void*>{plan.buffer});
  CHECK_CUDNN(cudnnBackendFinalize(pack));
  return pack;
}

inline void execute(cudnnHandle_t handle, const Plan& plan, const std::vector<int64_t>& uids,
                    const std::vector<void*>& pointers, PackStyle packs) {
  Descriptor pack = nullptr;
  on_thread(packs.elsewhere,
            [&] { pack = variant_pack(plan, uids, pointers, packs.intermediates); });
  CHECK_CUDNN(cudnnBackendExecute(handle, plan.plan, pack));
  on_thread(packs.elsewhere, [&] { CHECK_CUDNN(cudnnBackendDestroyDescriptor(pack)); });
}

// --populate, as cudnn-frontend's native CUDA graphs: the execution recorded into a CUDA graph
// by cudnnBackendPopulateCudaGraph and launched on the stream; where cuDNN has no native graph
// for the plan (NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API) it is executed as usual. Whether it was
// populated.
inline bool populate_or_execute(cudnnHandle_t handle, cudaStream_t stream, const Plan& plan,
                                const std::vector<int64_t>& uids,
                                const std::vector<void*>& pointers) {
  Descriptor pack = variant_pack(plan, uids, pointers);
  cudaGraph_t graph;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  const cudnnStatus_t status = cudnnBackendPopulateCudaGraph(handle, plan.plan, pack, graph);
  if (status == CUDNN_STATUS_SUCCESS) {
    cudaGraphExec_t runnable;
    CHECK_CUDA(cudaGraphInstantiate(&runnable, graph, 0));
    CHECK_CUDA(cudaGraphLaunch(runnable, stream));
    CHECK_CUDA(cudaGraphExecDestroy(runnable));
  } else if (status == CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API) {
    CHECK_CUDNN(cudnnBackendExecute(handle, plan.plan, pack));
  } else {
    CHECK_CUDNN(status);
  }
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDNN(cudnnBackendDestroyDescriptor(pack));
  return status == CUDNN_STATUS_SUCCESS;
}

// --benchmark, as torch.backends.cudnn.benchmark: each candidate executed once to warm up, then
// kBenchmarkRuns times between two events on the stream; the fastest kept (the first of equal
// ones), the others destroyed. Prints every candidate's engine and time.
inline constexpr int kBenchmarkRuns = 3;

inline void benchmark(cudnnHandle_t handle, cudaStream_t stream, Plan& plan,
                      const std::string& label, const std::vector<int64_t>& uids,
                      const std::vector<void*>& pointers, PackStyle packs) {
  if (plan.candidates.empty()) return;
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::string line = label + ": timed " + std::to_string(plan.candidates.size()) + " plans:";
  std::size_t best = 0;
  float best_ms = 0;
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    plan.plan = plan.candidates[i].plan;
    execute(handle, plan, uids, pointers, packs);
    CHECK_CUDA(cudaEventRecord(start, stream));
    for (int run = 0; run < kBenchmarkRuns; ++run) execute(handle, plan, uids, pointers, packs);
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    ms /= kBenchmarkRuns;
    char text[64];
    std::snprintf(text, sizeof text, " eng%lld %.9g ms",
                  static_cast<long long>(plan.candidates[i].engine), ms);
    line += text;
    if (i == 0 || ms < best_ms) best = i, best_ms = ms;
  }
  for (std::size_t i = 0; i < plan.candidates.size(); ++i)
    if (i != best) CHECK_CUDNN(cudnnBackendDestroyDescriptor(plan.candidates[i].plan));
  const Candidate& chosen = plan.candidates[best];
  plan.plan = chosen.plan, plan.configuration = chosen.configuration, plan.engine = chosen.engine;
  plan.candidates.clear();
  std::printf("%s; took eng%lld\n", line.c_str(), static_cast<long long>(plan.engine));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
}

}  // namespace ucudnn::examples
