// graph_conv: the convolution layers of network_layers.h trained the way PyTorch 2.x drives
// cuDNN by default (aten/src/ATen/native/cudnn/Conv_v8.cpp, cudnn-frontend): through the graph
// (backend) API. Per layer and operation it builds tensors with unique ids, a convolution
// descriptor, the operation and its graph; asks the heuristics for engine configurations (and,
// with --deterministic, skips the nondeterministic ones, as torch.backends.cudnn.deterministic
// does); finalizes the first execution plan that takes, reads EXECUTION_PLAN_WORKSPACE_SIZE and
// allocates exactly that; then each iteration builds a variant pack and executes the plan on one
// stream. It knows nothing of ucudnn: built against cuDNN's headers and linked with -lcudnn
// -lcudart, it runs on the real libraries, on the test doubles (LD_LIBRARY_PATH), or under the
// ucudnn shim (LD_PRELOAD).
//
// --graph fused builds each forward as a fused graph instead (convolution, bias addition and
// ReLU on virtual tensors), which ucudnn leaves to cuDNN. --no-handle sets no handle on the
// graph and the plan (both attributes are deprecated in cuDNN 9). --engine-rank R takes the R-th
// configuration that finalizes (the last one if fewer), as a benchmarking framework may choose
// another than the heuristics' first, finalizing all before it; --engine-only R finalizes only
// the R-th configuration (the last one if fewer), as an application that stored its choice.
// --engine-index E builds engine E (its global index) without asking the heuristics, with its
// knobs' defaults, where it takes the layer's graph (the heuristics' first elsewhere), as an
// application that enumerates engines or reuses a configuration it stored.
// --packs-elsewhere builds (and destroys) each variant pack on a thread of its own, executing it
// on the main one; --pack-intermediates sets each pack's intermediates too. --capture records each
// iteration's executions into a CUDA graph and launches it (torch.cuda.graphs, torch.compile's
// "reduce-overhead"); the plans are built before, outside the capture, as PyTorch warms up.
// --benchmark finalizes every configuration, times each plan and keeps the fastest, as
// torch.backends.cudnn.benchmark does. --workspace-memory SIZE passes over every configuration
// whose plan reports more than M bytes of workspace, as PyTorch under memory pressure moves on to
// the next plan when its allocator cannot give a plan's workspace. --populate records each
// execution into a CUDA graph with cudnnBackendPopulateCudaGraph and launches it (cudnn-frontend's
// native CUDA graphs), executing as usual where cuDNN has none for the plan. --data-type half|bf16
// stores every tensor in 16 bits, computed in float, and
// --channels-last makes every layer NHWC: with both, the convolutions of mixed-precision
// training (autocast, channels_last). --dump widens what it writes to float.
//
// Usage: graph_conv [--batch N] [--seed S] [--iterations I] [--layers L] [--graph conv|fused]
//                   [--deterministic] [--no-handle] [--capture] [--engine-rank R]
//                   [--engine-only R] [--engine-index E] [--packs-elsewhere]
//                   [--pack-intermediates]
//                   [--filter-beta B] [--dump FILE]
//                   [--data-type float|half|bf16] [--channels-last] [--benchmark]
//                   [--workspace-memory SIZE] [--populate]
// Prints per layer the engines taken and their workspaces, and at the end the GPU time of the
// last iteration of every layer together (CUDA events on the stream; not with --capture).
// Exit status: 0 success; 1 a CUDA or cuDNN call failed; 2 bad arguments.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "checked_calls.h"
#include "device_tensor.h"
#include "graph_building.h"
#include "graph_conv_options.h"
#include "graph_plans.h"
#include "network_layers.h"
#include "tensor_dump.h"

namespace {

using ucudnn::examples::benchmark;
using ucudnn::examples::Buffer;
using ucudnn::examples::Candidate;
using ucudnn::examples::convolution_descriptor;
using ucudnn::examples::create;
using ucudnn::examples::Descriptor;
using ucudnn::examples::device_buffer;
using ucudnn::examples::execute;
using ucudnn::examples::host_copy;
using ucudnn::examples::Plan;
using ucudnn::examples::pointwise;
using ucudnn::examples::populate_or_execute;
using ucudnn::examples::set;
using ucudnn::examples::set_descriptor;
using ucudnn::examples::tensor;
using ucudnn::examples::workspace_of;
using ucudnn::examples::graph_conv_cli::Options;

// Unique ids as PyTorch gives them: one character per role.
constexpr int64_t kX = 'x', kW = 'w', kY = 'y', kBias = 'b', kConvOut = 'c', kSum = 's';

enum class Kind { kForward, kBackwardData, kBackwardFilter };

// Whether a plan's workspace can be had (--workspace-memory).
bool fits(const Options& o, int64_t workspace) {
  return o.workspace_memory < 0 || workspace <= o.workspace_memory;
}

Plan build_plan(cudnnHandle_t handle, const ucudnn::examples::Layer& l, int batch, Kind kind,
                const Options& o, float alpha, float beta) {
  Plan plan;
  const int64_t out_h = (l.height + 2 * l.pad - ((l.filter_h - 1) * l.dilation + 1)) / l.stride + 1;
  const int64_t out_w = (l.width + 2 * l.pad - ((l.filter_w - 1) * l.dilation + 1)) / l.stride + 1;
  const std::vector<int64_t> x_dims{batch, l.in_channels, l.height, l.width},
      w_dims{l.out_channels, l.in_channels / l.groups, l.filter_h, l.filter_w},
      y_dims{batch, l.out_channels, out_h, out_w};
  const bool fused = o.fused && kind == Kind::kForward;
  const bool nhwc = l.channels_last || o.channels_last;
  const cudnnDataType_t type = o.data_type;
  Descriptor x = tensor(x_dims, nhwc, type, kX), w = tensor(w_dims, nhwc, type, kW);
  Descriptor y = tensor(y_dims, nhwc, type, fused ? kConvOut : kY, fused);
  Descriptor conv = convolution_descriptor(l);
  plan.owned = {x, w, y, conv};

  static const cudnnBackendDescriptorType_t kTypes[] = {
      CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
      CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
      CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR};
  struct Names {
    cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
  };
  static const Names kNames[] = {
      {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA}};
  const int k = static_cast<int>(kind);
  Descriptor op = create(kTypes[k]);
  set_descriptor(op, kNames[k].x, x);
  set_descriptor(op, kNames[k].w, w);
  set_descriptor(op, kNames[k].y, y);
  set_descriptor(op, kNames[k].conv, conv);
  set(op, kNames[k].alpha, CUDNN_TYPE_FLOAT, std::vector<float>{alpha});
  set(op, kNames[k].beta, CUDNN_TYPE_FLOAT, std::vector<float>{beta});
  CHECK_CUDNN(cudnnBackendFinalize(op));
  plan.owned.push_back(op);
  std::vector<Descriptor> ops{op};
  if (fused) {  // y = relu(conv(x, w) + bias)
    Descriptor bias = tensor({1, l.out_channels, 1, 1}, false, type, kBias);
    Descriptor sum = tensor(y_dims, nhwc, type, kSum, true);
    Descriptor out = tensor(y_dims, nhwc, type, kY);
    plan.owned.insert(plan.owned.end(), {bias, sum, out});
    ops.push_back(pointwise(CUDNN_POINTWISE_ADD, y, bias, sum, plan.owned));
    ops.push_back(pointwise(CUDNN_POINTWISE_RELU_FWD, sum, nullptr, out, plan.owned));
  }

  Descriptor graph = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  if (o.handle_attributes)
    set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE,
        std::vector<cudnnHandle_t>{handle});
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops);
  CHECK_CUDNN(cudnnBackendFinalize(graph));
  plan.owned.push_back(graph);

  if (o.engine_index >= 0) {
    const auto chosen = ucudnn::examples::plan_of_engine(handle, graph, o.engine_index,
                                                         o.handle_attributes, plan.owned);
    const int64_t workspace =
        chosen.plan ? workspace_of({chosen.plan, chosen.configuration, o.engine_index}) : 0;
    if (chosen.plan && !fits(o, workspace)) {
      CHECK_CUDNN(cudnnBackendDestroyDescriptor(chosen.plan));  // the heuristics' then
    } else if (chosen.plan) {
      plan.plan = chosen.plan, plan.configuration = chosen.configuration;
      plan.engine = o.engine_index;
      plan.workspace = workspace;
      if (plan.workspace > 0)
        CHECK_CUDA(cudaMalloc(&plan.buffer, static_cast<std::size_t>(plan.workspace)));
      return plan;
    }
  }
  Descriptor heuristics = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  set_descriptor(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  set(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE,
      std::vector<cudnnBackendHeurMode_t>{CUDNN_HEUR_MODE_A});
  CHECK_CUDNN(cudnnBackendFinalize(heuristics));
  plan.owned.push_back(heuristics);
  int64_t count = 0;
  CHECK_CUDNN(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<Descriptor> configurations(static_cast<std::size_t>(count));
  for (auto& c : configurations) c = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  plan.owned.insert(plan.owned.end(), configurations.begin(), configurations.end());
  CHECK_CUDNN(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count,
                                       configurations.data()));
  int finalized = 0;
  const int only = std::min<int>(o.engine_rank, static_cast<int>(configurations.size()) - 1);
  for (std::size_t index = 0; index < configurations.size(); ++index) {
    if (o.engine_only && static_cast<int>(index) != only) continue;
    Descriptor configuration = configurations[index];
    Descriptor engine = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    plan.owned.push_back(engine);
    int64_t got = 0;
    CHECK_CUDNN(cudnnBackendGetAttribute(configuration, CUDNN_ATTR_ENGINECFG_ENGINE,
                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &engine));
    if (o.deterministic) {
      cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
      CHECK_CUDNN(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                           CUDNN_TYPE_NUMERICAL_NOTE,
                                           CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &got, notes));
      bool nondeterministic = false;
      for (int64_t i = 0; i < got; ++i)
        nondeterministic |= notes[i] == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC;
      if (nondeterministic) continue;
    }
    Descriptor candidate = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    if (o.handle_attributes)
      set(candidate, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE,
          std::vector<cudnnHandle_t>{handle});
    set_descriptor(candidate, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configuration);
    // PyTorch takes the first configuration that finalizes, and whose workspace it can allocate.
    if (cudnnBackendFinalize(candidate) != CUDNN_STATUS_SUCCESS ||
        !fits(o, workspace_of({candidate, configuration, -1}))) {
      CHECK_CUDNN(cudnnBackendDestroyDescriptor(candidate));
      continue;
    }
    Candidate c{candidate, configuration, -1};
    CHECK_CUDNN(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64,
                                         1, &got, &c.engine));
    if (o.benchmark) {  // every one that finalizes, kept for timing
      plan.candidates.push_back(c);
      continue;
    }
    if (plan.plan) CHECK_CUDNN(cudnnBackendDestroyDescriptor(plan.plan));
    plan.plan = c.plan, plan.configuration = c.configuration, plan.engine = c.engine;
    if (++finalized > o.engine_rank) break;
  }
  if (!plan.candidates.empty()) {
    const Candidate& first = plan.candidates.front();
    plan.plan = first.plan, plan.configuration = first.configuration, plan.engine = first.engine;
  }
  if (!plan.plan)
    ucudnn::examples::die(__FILE__, __LINE__, "finding an execution plan", 0,
                          "no engine configuration finalized");
  plan.workspace = workspace_of({plan.plan, plan.configuration, plan.engine});
  for (const Candidate& c : plan.candidates)
    plan.workspace = std::max(plan.workspace, workspace_of(c));
  if (plan.workspace > 0)
    CHECK_CUDA(cudaMalloc(&plan.buffer, static_cast<std::size_t>(plan.workspace)));
  return plan;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ucudnn::examples::graph_conv_cli::parse_options(argc, argv);
  cudnnHandle_t handle;
  CHECK_CUDNN(cudnnCreate(&handle));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDNN(cudnnSetStream(handle, stream));
  std::mt19937 random(o.seed);
  std::vector<ucudnn::examples::DumpedTensor> dumped;
  cudaEvent_t last_start, last_stop;
  CHECK_CUDA(cudaEventCreate(&last_start));
  CHECK_CUDA(cudaEventCreate(&last_stop));
  double last_iterations_ms = 0;
  int populated = 0, refused = 0;  // --populate: executions recorded natively, or not
  for (int li = 0; li < o.layers; ++li) {
    const auto& l = ucudnn::examples::kLayers[li];
    const int64_t out_h =
        (l.height + 2 * l.pad - ((l.filter_h - 1) * l.dilation + 1)) / l.stride + 1;
    const int64_t out_w =
        (l.width + 2 * l.pad - ((l.filter_w - 1) * l.dilation + 1)) / l.stride + 1;
    const std::size_t n = static_cast<std::size_t>(o.batch);
    Buffer x = device_buffer(n * l.in_channels * l.height * l.width, o.data_type, random);
    Buffer w = device_buffer(static_cast<std::size_t>(l.out_channels) * (l.in_channels / l.groups) *
                                 l.filter_h * l.filter_w,
                             o.data_type, random);
    Buffer y = device_buffer(n * l.out_channels * out_h * out_w, o.data_type, random);
    Buffer dy = device_buffer(y.count, o.data_type, random);
    Buffer dx = device_buffer(x.count, o.data_type, random);
    Buffer dw = device_buffer(w.count, o.data_type, random);
    Buffer bias = device_buffer(static_cast<std::size_t>(l.out_channels), o.data_type, random);
    Plan forward = build_plan(handle, l, o.batch, Kind::kForward, o, l.forward_alpha,
                              o.fused ? 0.0f : l.forward_beta);
    Plan backward_data = build_plan(handle, l, o.batch, Kind::kBackwardData, o, 1, 0);
    Plan backward_filter =
        build_plan(handle, l, o.batch, Kind::kBackwardFilter, o, 1, o.filter_beta);
    const std::string name = l.name;
    if (o.fused)
      benchmark(handle, stream, forward, name + " Forward", {kX, kW, kBias, kY},
                {x.data, w.data, bias.data, y.data}, o.packs);
    else
      benchmark(handle, stream, forward, name + " Forward", {kX, kW, kY}, {x.data, w.data, y.data},
                o.packs);
    benchmark(handle, stream, backward_data, name + " BackwardData", {kX, kW, kY},
              {dx.data, w.data, dy.data}, o.packs);
    benchmark(handle, stream, backward_filter, name + " BackwardFilter", {kX, kW, kY},
              {x.data, dw.data, dy.data}, o.packs);
    std::printf(
        "%s: Forward engine %lld workspace %lld, BackwardData engine %lld workspace %lld, "
        "BackwardFilter engine %lld workspace %lld\n",
        l.name, static_cast<long long>(forward.engine), static_cast<long long>(forward.workspace),
        static_cast<long long>(backward_data.engine),
        static_cast<long long>(backward_data.workspace),
        static_cast<long long>(backward_filter.engine),
        static_cast<long long>(backward_filter.workspace));
    for (int it = 0; it < o.iterations; ++it) {
      const bool timed = it + 1 == o.iterations && !o.capture;
      if (timed) CHECK_CUDA(cudaEventRecord(last_start, stream));
      if (o.capture) CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
      auto run = [&](const Plan& plan, const std::vector<int64_t>& uids,
                     const std::vector<void*>& pointers) {
        if (!o.populate) return execute(handle, plan, uids, pointers, o.packs);
        ++(populate_or_execute(handle, stream, plan, uids, pointers) ? populated : refused);
      };
      if (o.fused)
        run(forward, {kX, kW, kBias, kY}, {x.data, w.data, bias.data, y.data});
      else
        run(forward, {kX, kW, kY}, {x.data, w.data, y.data});
      run(backward_data, {kX, kW, kY}, {dx.data, w.data, dy.data});
      run(backward_filter, {kX, kW, kY}, {x.data, dw.data, dy.data});
      if (o.capture) {
        cudaGraph_t graph;
        cudaGraphExec_t runnable;
        CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
        CHECK_CUDA(cudaGraphInstantiate(&runnable, graph, 0));
        CHECK_CUDA(cudaGraphLaunch(runnable, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaGraphExecDestroy(runnable));
        CHECK_CUDA(cudaGraphDestroy(graph));
      }
      if (timed) CHECK_CUDA(cudaEventRecord(last_stop, stream));
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    if (!o.capture) {
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, last_start, last_stop));
      last_iterations_ms += ms;
    }
    dumped.push_back({name + ".y", host_copy(y)});
    dumped.push_back({name + ".dx", host_copy(dx)});
    dumped.push_back({name + ".dw", host_copy(dw)});
    for (const Plan* p : {&forward, &backward_data, &backward_filter}) {
      CHECK_CUDNN(cudnnBackendDestroyDescriptor(p->plan));
      for (Descriptor d : p->owned) CHECK_CUDNN(cudnnBackendDestroyDescriptor(d));
      if (p->buffer) CHECK_CUDA(cudaFree(p->buffer));
    }
    for (Buffer* b : {&x, &w, &y, &dy, &dx, &dw, &bias}) CHECK_CUDA(cudaFree(b->data));
  }
  if (!o.dump.empty()) ucudnn::examples::write_tensor_dump(o.dump, dumped);
  if (!o.capture)
    std::printf("graph_conv: last iterations %.9g ms on the GPU\n", last_iterations_ms);
  if (o.populate)
    std::printf("graph_conv: native CUDA graphs: %d executions populated, %d refused\n", populated,
                refused);
  CHECK_CUDA(cudaEventDestroy(last_start));
  CHECK_CUDA(cudaEventDestroy(last_stop));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDNN(cudnnDestroy(handle));
  std::printf("graph_conv: %d layers, %d iterations, batch %d: done\n", o.layers, o.iterations,
              o.batch);
  return 0;
}
