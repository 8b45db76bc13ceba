// The per-call cost of ucudnn on a planned convolution: the same Forward call made directly
// on the cuDNN test doubles (a concrete algorithm), through the LD_PRELOAD shim with a
// concrete algorithm (pass-through), and through the shim with the virtual algorithm (a
// plan of one undivided micro-batch, so both make exactly one call of the doubles). The
// doubles skip the arithmetic (FAKECUDA_COMPUTE=0): what remains is call overhead.
// Target: planned - direct under 1 µs; DescriptorReads is what cuDNN's own getters take of it.
// NewHandleFindsCachedPlan - NewHandle: what a kernel whose plan is stored costs to plan. The
// Graph* benchmarks do the same through the graph
// (backend) API as PyTorch runs a convolution: a variant pack built, finalized, executed and
// destroyed per call, on the doubles directly, through the shim on a plan it leaves to cuDNN
// (the second plan of a graph whose first ran as ucudnn's: the claim checked, nothing else),
// and on a plan it runs. The program runs itself again, as a child, under LD_PRELOAD and
// LD_LIBRARY_PATH when they are not set.
// On a GPU, UCUDNN_OVERHEAD_REAL_CUDNN=1 runs the same against the real cuDNN (found as the
// dynamic linker finds libcudnn.so.9), on a small convolution (4x32x14x14, 3x3) so that the
// host, not the GPU, sets the pace: the times are then host time per call, and Direct vs
// GraphDirect is what cuDNN 9 itself charges for a legacy call against a plan execution.
// UCUDNN_OVERHEAD_SHAPE=N,C,H,W sets the shape (C filters of C channels, 3x3, padding 1).
// On the doubles, each call is charged the host time the real library takes (the doubles'
// FAKECUDA_HOST_COST_US, unless set): 107 us per legacy convolution call and 32 us per plan
// execution, the medians of ResNet-50's convolutions under PyTorch 2.11 on an H200 with cuDNN
// 9.19 (2026-11-27; the shim's host-time account with UCUDNN_DISABLE=1 on the legacy API, and
// with every plan left to cuDNN on the graph API). So a graph API call that ucudnn turns into
// legacy calls, or a shim that makes calls the application would not, shows here as it would on
// a GPU.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Shape {
  int n = 32, c = 64, h = 28, w = 28;
  std::int64_t elements() const { return std::int64_t{n} * c * h * w; }
};

const Shape& shape() {
  static const Shape s = [] {
    Shape chosen;
    if (std::getenv("UCUDNN_OVERHEAD_REAL_CUDNN")) chosen = Shape{4, 32, 14, 14};
    if (const char* text = std::getenv("UCUDNN_OVERHEAD_SHAPE"))
      std::sscanf(text, "%d,%d,%d,%d", &chosen.n, &chosen.c, &chosen.h, &chosen.w);
    return chosen;
  }();
  return s;
}

constexpr std::size_t kWorkspaceBytes = 64 << 20;

struct Setup {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  void *x_data = nullptr, *w_data = nullptr, *y_data = nullptr, *workspace = nullptr;
  decltype(&cudnnConvolutionForward) direct = nullptr;

  Setup() {
    cudnnCreate(&handle);
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    const Shape& s = shape();
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.n, s.c, s.h, s.w);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.c, s.c, 3, 3);
    cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.n, s.c, s.h, s.w);
    cudaMalloc(&x_data, static_cast<std::size_t>(s.elements()) * 4);
    cudaMalloc(&y_data, static_cast<std::size_t>(s.elements()) * 4);
    cudaMalloc(&w_data, static_cast<std::size_t>(s.c) * s.c * 9 * 4);
    cudaMalloc(&workspace, kWorkspaceBytes);
    void* library = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
    direct = reinterpret_cast<decltype(direct)>(dlsym(library, "cudnnConvolutionForward"));
  }
  cudnnStatus_t call(decltype(&cudnnConvolutionForward) function, int algorithm) const {
    const float one = 1, zero = 0;
    return function(handle, &one, x, x_data, w, w_data, conv,
                    static_cast<cudnnConvolutionFwdAlgo_t>(algorithm), workspace, kWorkspaceBytes,
                    &zero, y, y_data);
  }
};

const Setup& setup() {
  static const Setup s;
  return s;
}

void run(benchmark::State& state, decltype(&cudnnConvolutionForward) function, int algorithm) {
  const Setup& s = setup();
  if (s.call(function, algorithm) != CUDNN_STATUS_SUCCESS) {  // plans on first use
    state.SkipWithError("the convolution call failed");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(s.call(function, algorithm));
}

void Direct(benchmark::State& state) {
  run(state, setup().direct, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
}
void PassThrough(benchmark::State& state) {
  run(state, &cudnnConvolutionForward, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
}
void Planned(benchmark::State& state) {
  run(state, &cudnnConvolutionForward, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
}

// What a planned legacy call must ask cuDNN before it may reuse its plan: the seven getters that
// read the call's descriptors (the application may have rewritten them in place), made straight
// on the library.
void DescriptorReads(benchmark::State& state) {
  const Setup& s = setup();
  void* library = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
  auto find = [library](const char* name) { return library ? dlsym(library, name) : nullptr; };
  auto* tensor =
      reinterpret_cast<decltype(&cudnnGetTensorNdDescriptor)>(find("cudnnGetTensorNdDescriptor"));
  auto* filter =
      reinterpret_cast<decltype(&cudnnGetFilterNdDescriptor)>(find("cudnnGetFilterNdDescriptor"));
  auto* convolution = reinterpret_cast<decltype(&cudnnGetConvolutionNdDescriptor)>(
      find("cudnnGetConvolutionNdDescriptor"));
  auto* groups = reinterpret_cast<decltype(&cudnnGetConvolutionGroupCount)>(
      find("cudnnGetConvolutionGroupCount"));
  auto* math =
      reinterpret_cast<decltype(&cudnnGetConvolutionMathType)>(find("cudnnGetConvolutionMathType"));
  auto* reorder = reinterpret_cast<decltype(&cudnnGetConvolutionReorderType)>(
      find("cudnnGetConvolutionReorderType"));
  if (!tensor || !filter || !convolution || !groups || !math || !reorder) {
    state.SkipWithError("the library lacks a descriptor getter");
    return;
  }
  int rank = 0, dims[8], strides[8], spatial = 0, pad[6], stride[6], dilation[6], count = 0;
  cudnnDataType_t type;
  cudnnTensorFormat_t format;
  cudnnConvolutionMode_t mode;
  cudnnMathType_t math_type;
  cudnnReorderType_t reorder_type;
  for (auto _ : state) {
    tensor(s.x, 8, &type, &rank, dims, strides);
    tensor(s.y, 8, &type, &rank, dims, strides);
    filter(s.w, 8, &type, &format, &rank, dims);
    convolution(s.conv, 6, &spatial, pad, stride, dilation, &mode, &type);
    groups(s.conv, &count);
    math(s.conv, &math_type);
    benchmark::DoNotOptimize(reorder(s.conv, &reorder_type));
  }
}

// A kernel whose plan is in the database, met by a new handle (a new process, a new
// framework context): the cost of finding its plan, beyond creating the handle. After the
// first lookup it must cost no SQLite query.
void find_on_new_handle(benchmark::State& state, bool find) {
  const Setup& s = setup();
  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t perf{};
  if (cudnnFindConvolutionForwardAlgorithm(s.handle, s.x, s.w, s.conv, s.y, 1, &returned,
                                           &perf) != CUDNN_STATUS_SUCCESS) {  // plans, stores
    state.SkipWithError("cudnnFindConvolutionForwardAlgorithm failed");
    return;
  }
  for (auto _ : state) {
    cudnnHandle_t handle = nullptr;
    cudnnCreate(&handle);
    if (find)
      benchmark::DoNotOptimize(
          cudnnFindConvolutionForwardAlgorithm(handle, s.x, s.w, s.conv, s.y, 1, &returned, &perf));
    cudnnDestroy(handle);
  }
}
void NewHandle(benchmark::State& state) {
  find_on_new_handle(state, false);
}
void NewHandleFindsCachedPlan(benchmark::State& state) {
  find_on_new_handle(state, true);
}

// The graph API's functions, from the doubles directly or as the program binds them (the shim).
struct GraphApi {
  decltype(&cudnnBackendCreateDescriptor) create;
  decltype(&cudnnBackendDestroyDescriptor) destroy;
  decltype(&cudnnBackendSetAttribute) set;
  decltype(&cudnnBackendGetAttribute) get;
  decltype(&cudnnBackendFinalize) finalize;
  decltype(&cudnnBackendExecute) execute;

  static GraphApi bound() {
    return {&cudnnBackendCreateDescriptor, &cudnnBackendDestroyDescriptor,
            &cudnnBackendSetAttribute,     &cudnnBackendGetAttribute,
            &cudnnBackendFinalize,         &cudnnBackendExecute};
  }
  static GraphApi direct() {
    void* library = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
    auto find = [library](const char* name) { return dlsym(library, name); };
    return {reinterpret_cast<decltype(create)>(find("cudnnBackendCreateDescriptor")),
            reinterpret_cast<decltype(destroy)>(find("cudnnBackendDestroyDescriptor")),
            reinterpret_cast<decltype(set)>(find("cudnnBackendSetAttribute")),
            reinterpret_cast<decltype(get)>(find("cudnnBackendGetAttribute")),
            reinterpret_cast<decltype(finalize)>(find("cudnnBackendFinalize")),
            reinterpret_cast<decltype(execute)>(find("cudnnBackendExecute"))};
  }

  cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type) const {
    cudnnBackendDescriptor_t d = nullptr;
    create(type, &d);
    return d;
  }
  template <typename T>
  void put(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, std::initializer_list<T> values) const {
    set(d, name, type, static_cast<int64_t>(values.size()), std::data(values));
  }
  cudnnBackendDescriptor_t tensor(std::initializer_list<int64_t> dims,
                                  std::initializer_list<int64_t> strides, int64_t uid) const {
    auto t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    put(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
    put(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims);
    put(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides);
    put(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, {uid});
    put(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, {int64_t{16}});
    finalize(t);
    return t;
  }
  // Two execution plans of the Setup's convolution, made from one operation graph as an
  // autotuning framework makes them. Under the shim the first of a graph's plans to execute runs
  // ucudnn's plan and the others cuDNN's engine (src/shim/backend/graph_claim.h). On the
  // doubles the engine is IMPLICIT_GEMM (engine 0), the direct legacy call's; on the real
  // library it is the first configuration of the heuristics (mode A, then the fallback list)
  // that finalizes, as frameworks take it. The graph and the plans name the handle, as cuDNN
  // requires. Empty, and `failed` says where, when cuDNN refuses.
  struct Plans {
    cudnnBackendDescriptor_t first = nullptr, second = nullptr;
    std::string failed;
  };
  Plans plans(cudnnHandle_t handle) const {
    const Shape& s = shape();
    const std::int64_t n = s.n, c = s.c, h = s.h, w_ = s.w;
    auto x = tensor({n, c, h, w_}, {c * h * w_, h * w_, w_, 1}, 'x');
    auto w = tensor({c, c, 3, 3}, {c * 9, 9, 3, 1}, 'w');
    auto y = tensor({n, c, h, w_}, {c * h * w_, h * w_, w_, 1}, 'y');
    auto conv = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    put(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, {int64_t{2}});
    put(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
    put(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
        {CUDNN_CROSS_CORRELATION});
    for (auto name : {CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
                      CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_ATTR_CONVOLUTION_DILATIONS})
      put(conv, name, CUDNN_TYPE_INT64, {int64_t{1}, int64_t{1}});
    Plans made;
    if (cudnnStatus_t status = finalize(conv)) return failed_at("the convolution", status);
    auto op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    put(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, {x});
    put(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, {w});
    put(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, {y});
    put(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        {conv});
    put(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, {1.0f});
    put(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, {0.0f});
    if (cudnnStatus_t status = finalize(op)) return failed_at("the operation", status);
    auto graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    put(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, {handle});
    put(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, {op});
    if (cudnnStatus_t status = finalize(graph)) return failed_at("the operation graph", status);
    if (std::getenv("UCUDNN_OVERHEAD_REAL_CUDNN")) {
      for (auto mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
        for (auto configuration : heuristics_results(graph, mode)) {
          made.first = plan_of(handle, configuration);
          made.second = made.first ? plan_of(handle, configuration) : nullptr;
          if (made.second) return made;
          if (made.first) destroy(made.first);
        }
      }
      return failed_at("every configuration of the heuristics", CUDNN_STATUS_NOT_SUPPORTED);
    }
    auto engine = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    put(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, {graph});
    put(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, {int64_t{0}});
    if (cudnnStatus_t status = finalize(engine)) return failed_at("engine 0", status);
    auto configuration = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    put(configuration, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, {engine});
    if (cudnnStatus_t status = finalize(configuration))
      return failed_at("engine 0's configuration", status);
    made.first = plan_of(handle, configuration);
    made.second = plan_of(handle, configuration);
    if (!made.first || !made.second)
      return failed_at("engine 0's execution plan", CUDNN_STATUS_NOT_SUPPORTED);
    return made;
  }
  static Plans failed_at(const std::string& what, cudnnStatus_t status) {
    return {nullptr, nullptr,
            what + " did not finalize (status " + std::to_string(static_cast<int>(status)) + ")"};
  }
  // The configurations a heuristics mode offers for `graph`, best first.
  std::vector<cudnnBackendDescriptor_t> heuristics_results(cudnnBackendDescriptor_t graph,
                                                           cudnnBackendHeurMode_t mode) const {
    auto heuristics = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    put(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, {graph});
    put(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, {mode});
    int64_t count = 0;
    if (finalize(heuristics) != CUDNN_STATUS_SUCCESS ||
        get(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
            nullptr) != CUDNN_STATUS_SUCCESS ||
        count <= 0)
      return {};
    std::vector<cudnnBackendDescriptor_t> results(static_cast<std::size_t>(count));
    for (auto& result : results) result = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    if (get(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count,
            results.data()) != CUDNN_STATUS_SUCCESS)
      return {};
    results.resize(std::min(results.size(), static_cast<std::size_t>(std::max<int64_t>(count, 0))));
    return results;
  }
  // A finalized execution plan of `configuration` whose workspace fits the Setup's, or null.
  cudnnBackendDescriptor_t plan_of(cudnnHandle_t handle,
                                   cudnnBackendDescriptor_t configuration) const {
    auto plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    put(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, {handle});
    put(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        {configuration});
    int64_t workspace = 0, count = 0;
    if (finalize(plan) == CUDNN_STATUS_SUCCESS &&
        get(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count,
            &workspace) == CUDNN_STATUS_SUCCESS &&
        count == 1 && workspace >= 0 && static_cast<std::size_t>(workspace) <= kWorkspaceBytes)
      return plan;
    destroy(plan);
    return nullptr;
  }
  // One call as PyTorch makes it: a variant pack per execution.
  cudnnStatus_t run(const Setup& s, cudnnBackendDescriptor_t plan) const {
    auto pack = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    put(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
        {int64_t{'x'}, int64_t{'w'}, int64_t{'y'}});
    put(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
        {s.x_data, s.w_data, s.y_data});
    put(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, {s.workspace});
    finalize(pack);
    const cudnnStatus_t status = execute(s.handle, plan, pack);
    destroy(pack);
    return status;
  }
};

// `ceded`: time a plan the shim leaves to cuDNN, the second of its graph, after the first ran
// (as ucudnn's plan); else the first.
void run_graph(benchmark::State& state, const GraphApi& api, bool ceded) {
  const Setup& s = setup();
  const auto plans = api.plans(s.handle);
  if (!plans.first) {
    state.SkipWithError(plans.failed.c_str());
    return;
  }
  const cudnnStatus_t first = api.run(s, plans.first);
  const cudnnStatus_t second = api.run(s, plans.second);
  if (first != CUDNN_STATUS_SUCCESS || second != CUDNN_STATUS_SUCCESS) {
    const std::string error = "the graph API execution failed (status " +
                              std::to_string(static_cast<int>(first)) + ", then " +
                              std::to_string(static_cast<int>(second)) + ")";
    state.SkipWithError(error.c_str());
    return;
  }
  const cudnnBackendDescriptor_t timed = ceded ? plans.second : plans.first;
  for (auto _ : state) benchmark::DoNotOptimize(api.run(s, timed));
  api.destroy(plans.second);
  api.destroy(plans.first);
}

void GraphDirect(benchmark::State& state) {
  run_graph(state, GraphApi::direct(), false);
}
void GraphPassThrough(benchmark::State& state) {
  run_graph(state, GraphApi::bound(), true);
}
void GraphPlanned(benchmark::State& state) {
  run_graph(state, GraphApi::bound(), false);
}

BENCHMARK(Direct);
BENCHMARK(PassThrough);
BENCHMARK(Planned);
BENCHMARK(DescriptorReads);
BENCHMARK(NewHandle);
BENCHMARK(NewHandleFindsCachedPlan);
BENCHMARK(GraphDirect);
BENCHMARK(GraphPassThrough);
BENCHMARK(GraphPlanned);

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("UCUDNN_OVERHEAD_CHILD")) {
    setenv("UCUDNN_OVERHEAD_CHILD", "1", 1);
    setenv("LD_PRELOAD", UCUDNN_PRELOAD, 1);
    if (!std::getenv("UCUDNN_OVERHEAD_REAL_CUDNN")) {
      setenv("LD_LIBRARY_PATH", UCUDNN_FAKECUDA_DIR, 1);
      setenv("FAKECUDA_COMPUTE", "0", 1);
      setenv("FAKECUDA_HOST_COST_US", "legacy=107,execute=32", 0);
    }
    // One undivided micro-batch: the planned call makes exactly one call of the doubles. No
    // workspace: the plan's algorithm is IMPLICIT_GEMM, the one the direct call names (an
    // algorithm with a workspace costs the doubles' race check over their pending work).
    setenv("UCUDNN_BATCH_SIZE_POLICY", "undivided", 1);
    setenv("UCUDNN_WORKSPACE_LIMIT", "0", 1);
    // GraphPlanned measures ucudnn's path: its plan runs even where the application's is as fast.
    setenv("UCUDNN_GRAPH_PLANS", "ucudnn", 0);
    // The plans go to a database of this run unless one is named. It is removed once the
    // child has exited: the shim saves to it at the child's exit, after main returns.
    const std::string database =
        "/tmp/ucudnn-bench-shim-overhead-" + std::to_string(getpid()) + ".db";
    const bool own_database = !std::getenv("UCUDNN_DATABASE");
    if (own_database) setenv("UCUDNN_DATABASE", database.c_str(), 1);
    const pid_t child = fork();
    if (child == 0) {
      execv("/proc/self/exe", argv);
      std::perror("ucudnn-bench-shim-overhead: exec");
      _exit(1);
    }
    std::signal(SIGINT, SIG_IGN);  // Ctrl-C stops the child; the database is removed after it
    int status = 1;
    if (child < 0 || waitpid(child, &status, 0) != child) {
      std::perror("ucudnn-bench-shim-overhead");
      status = 1;
    }
    if (own_database)
      for (const char* suffix : {"", ".lock", "-journal"}) std::remove((database + suffix).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  Dl_info info{};
  dladdr(reinterpret_cast<void*>(&cudnnConvolutionForward), &info);
  if (!info.dli_fname || !std::strstr(info.dli_fname, "ucudnn_preload") || !setup().direct) {
    std::fprintf(stderr, "ucudnn-bench-shim-overhead: the shim or cuDNN is not loaded\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
