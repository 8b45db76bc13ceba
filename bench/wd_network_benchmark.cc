// ucudnn-bench-wd-network: workspace division as frameworks run it, on the cuDNN test doubles.
// Convolutions (Forward, BackwardData and BackwardFilter of every layer) train for a few
// iterations under UCUDNN_TOTAL_WORKSPACE_SIZE:
//   eager:  ResNet-50, algorithms selected up front, everything on one handle and stream;
//   lazy:   ResNet-50, selected right before each layer's first call, forward on one handle and
//           thread, backward on another (PyTorch's autograd thread), one stream;
//   towers: two towers (ResNet-50's and AlexNet's convolutions), each on a handle and stream of
//           its own that never waits for the other's (a two-tower model, concurrent inference),
//           beside the same towers on one stream (serialized: what one shared buffer gives)
//           and each tower alone (the workspace its fastest plans need).
// Each runs in a process of its own with a fresh database, under LD_PRELOAD, so each learns the
// network from its calls. Reported per scenario: the time of each iteration on the doubles'
// clock (the cost model: what the division buys), divided against before the division (one
// stream: never slower), the device memory ucudnn holds at the end and at most during the
// iterations (from the doubles' allocation trace), and what the last iteration caused below
// the shim (allocations, frees, synchronizations: none once learned). The doubles skip the
// arithmetic (FAKECUDA_COMPUTE=0).
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "networks/network.h"
#include "support/fakecuda_trace.h"

namespace {

using ucudnn::testing::count_trace;
using ucudnn::testing::trace_size;
using ucudnn::testing::TraceCounts;

constexpr const char* kChild = "UCUDNN_WD_BENCH_SCENARIO";

#define CHECK(call)                                                            \
  do {                                                                         \
    if (const auto status = (call); status != 0) {                             \
      std::fprintf(stderr, "ucudnn-bench-wd-network: %s failed (%d)\n", #call, \
                   static_cast<int>(status));                                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// One layer's descriptors and the algorithms the application chose (the virtual one under WD).
struct Layer {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algorithm[3] = {-1, -1, -1};

  explicit Layer(const ucudnn::ConvolutionProblem& p) {
    CHECK(cudnnCreateTensorDescriptor(&x));
    CHECK(cudnnCreateTensorDescriptor(&y));
    CHECK(cudnnCreateFilterDescriptor(&w));
    CHECK(cudnnCreateConvolutionDescriptor(&conv));
    const auto d = [](const ucudnn::TensorShape& t, int i) { return static_cast<int>(t.dims[i]); };
    CHECK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, d(p.x, 0), d(p.x, 1),
                                     d(p.x, 2), d(p.x, 3)));
    CHECK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, d(p.y, 0), d(p.y, 1),
                                     d(p.y, 2), d(p.y, 3)));
    CHECK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, d(p.w, 0), d(p.w, 1),
                                     d(p.w, 2), d(p.w, 3)));
    CHECK(cudnnSetConvolution2dDescriptor(
        conv, static_cast<int>(p.padding[0]), static_cast<int>(p.padding[1]),
        static_cast<int>(p.stride[0]), static_cast<int>(p.stride[1]),
        static_cast<int>(p.dilation[0]), static_cast<int>(p.dilation[1]), CUDNN_CROSS_CORRELATION,
        CUDNN_DATA_FLOAT));
    CHECK(cudnnSetConvolutionGroupCount(conv, static_cast<int>(p.groups)));
  }
  ~Layer() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  void select(cudnnHandle_t handle, int operation) {
    if (algorithm[operation] >= 0) return;
    int returned = 0;
    if (operation == 0) {
      cudnnConvolutionFwdAlgoPerf_t perf{};
      CHECK(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 1, &returned, &perf));
      algorithm[0] = perf.algo;
    } else if (operation == 1) {
      cudnnConvolutionBwdDataAlgoPerf_t perf{};
      CHECK(
          cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w, y, conv, x, 1, &returned, &perf));
      algorithm[1] = perf.algo;
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf{};
      CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x, y, conv, w, 1, &returned,
                                                          &perf));
      algorithm[2] = perf.algo;
    }
  }
};

// Every layer reads and writes the same buffers, sized for the largest: the doubles compute
// nothing, and ResNet-50's own activations would take gigabytes of host memory.
struct Buffers {
  void *x, *dx, *y, *dy, *w, *dw;
};

void run(cudnnHandle_t handle, const Layer& l, const Buffers& b, int operation) {
  const float one = 1, zero = 0;
  if (operation == 0)
    CHECK(cudnnConvolutionForward(handle, &one, l.x, b.x, l.w, b.w, l.conv,
                                  cudnnConvolutionFwdAlgo_t(l.algorithm[0]), nullptr, 0, &zero, l.y,
                                  b.y));
  else if (operation == 1)
    CHECK(cudnnConvolutionBackwardData(handle, &one, l.w, b.w, l.y, b.dy, l.conv,
                                       cudnnConvolutionBwdDataAlgo_t(l.algorithm[1]), nullptr, 0,
                                       &zero, l.x, b.dx));
  else
    CHECK(cudnnConvolutionBackwardFilter(handle, &one, l.x, b.x, l.y, b.dy, l.conv,
                                         cudnnConvolutionBwdFilterAlgo_t(l.algorithm[2]), nullptr,
                                         0, &zero, l.w, b.dw));
}

int child(const std::string& scenario, std::int64_t batch, int iterations) {
  const bool lazy = scenario == "lazy";
  const bool towers = scenario.rfind("tower", 0) == 0;
  const bool two_streams = scenario == "towers";
  std::vector<std::vector<ucudnn::NamedConvolution>> networks;
  if (!towers || scenario == "towers" || scenario == "towers-one-stream" || scenario == "tower-a")
    networks.push_back(ucudnn::resnet50_convolutions(batch));
  if (scenario == "towers" || scenario == "towers-one-stream" || scenario == "tower-b")
    networks.push_back(ucudnn::alexnet_convolutions(batch));
  std::size_t xs = 0, ys = 0, ws = 0, depth = 0;
  for (const auto& network : networks) {
    depth = std::max(depth, network.size());
    for (const auto& layer : network) {
      xs = std::max<std::size_t>(xs, layer.problem.x.element_count());
      ys = std::max<std::size_t>(ys, layer.problem.y.element_count());
      ws = std::max<std::size_t>(ws, layer.problem.w.element_count());
    }
  }
  Buffers buffers{};
  for (auto [pointer, floats] : {std::pair{&buffers.x, xs},
                                 {&buffers.dx, xs},
                                 {&buffers.y, ys},
                                 {&buffers.dy, ys},
                                 {&buffers.w, ws},
                                 {&buffers.dw, ws}})
    CHECK(cudaMalloc(pointer, floats * sizeof(float)));
  std::vector<std::vector<std::unique_ptr<Layer>>> layers(networks.size());
  for (std::size_t t = 0; t < networks.size(); ++t)
    for (const auto& layer : networks[t])
      layers[t].push_back(std::make_unique<Layer>(layer.problem));

  std::vector<cudaStream_t> streams(two_streams ? 2 : 1);
  for (auto& stream : streams) CHECK(cudaStreamCreate(&stream));
  const cudaStream_t stream = streams.front();
  // lazy: forward and backward handles; towers: a handle per tower; eager: one.
  std::vector<cudnnHandle_t> handles(lazy ? 2 : networks.size());
  for (std::size_t h = 0; h < handles.size(); ++h) {
    CHECK(cudnnCreate(&handles[h]));
    CHECK(cudnnSetStream(handles[h], streams[h % streams.size()]));
  }
  auto handle_for = [&](std::size_t tower, int operation) {
    if (lazy) return operation == 0 ? handles.front() : handles.back();
    return handles[tower];
  };
  std::size_t free_before = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_before, &total));
  // The most ucudnn holds is read from the second iteration on: the first measures (its
  // benchmarks' tensors are not workspace), the second learns and divides.
  std::size_t held_from = 0, trace_from = 0;
  if (!lazy)
    for (std::size_t t = 0; t < layers.size(); ++t)
      for (auto& layer : layers[t])
        for (int operation = 0; operation < 3; ++operation)
          layer->select(handle_for(t, operation), operation);

  cudaEvent_t start, end;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&end));
  std::printf("%-18s", (scenario + ":").c_str());
  std::vector<double> times;
  TraceCounts last;
  for (int i = 0; i < iterations; ++i) {
    const auto from = trace_size();
    if (i == 1) {
      std::size_t free_now = 0;
      CHECK(cudaMemGetInfo(&free_now, &total));
      held_from = free_before - free_now;
      trace_from = from;
    }
    CHECK(cudaEventRecord(start, stream));
    for (auto s : streams) CHECK(cudaStreamWaitEvent(s, start, 0));
    auto step = [&](std::size_t t, std::size_t l, int operation) {
      if (l >= layers[t].size()) return;
      Layer& layer = *layers[t][l];
      if (lazy) layer.select(handle_for(t, operation), operation);
      run(handle_for(t, operation), layer, buffers, operation);
    };
    auto on_thread = [&](auto work) {
      if (lazy)
        std::thread(work).join();  // the framework's forward and autograd threads in turn
      else
        work();
    };
    on_thread([&] {
      for (std::size_t l = 0; l < depth; ++l)
        for (std::size_t t = 0; t < layers.size(); ++t) step(t, l, 0);
    });
    on_thread([&] {
      for (std::size_t l = depth; l-- > 0;)
        for (std::size_t t = 0; t < layers.size(); ++t)
          for (int operation : {1, 2}) step(t, l, operation);
    });
    for (auto s : streams) {
      CHECK(cudaEventRecord(end, s));
      CHECK(cudaStreamWaitEvent(stream, end, 0));
    }
    CHECK(cudaEventRecord(end, stream));
    const auto to = trace_size();  // before this program's own synchronization
    CHECK(cudaEventSynchronize(end));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, end));
    std::printf(" %.3f", ms);
    times.push_back(ms);
    last = count_trace(from, to);
  }
  const TraceCounts after_measuring = count_trace(trace_from, trace_size());
  const auto peak = static_cast<std::int64_t>(held_from) + after_measuring.peak_held_bytes;
  std::size_t free_after = 0;
  CHECK(cudaMemGetInfo(&free_after, &total));
  std::printf(
      " ms per iteration; %.1f MiB held, at most %.1f MiB after measuring; last iteration: %d "
      "convolutions, %d allocations, %d frees, %d synchronizations (below the shim)\n",
      static_cast<double>(free_before - free_after) / (1 << 20),
      static_cast<double>(peak) / (1 << 20), last.convolutions, last.allocations, last.frees,
      last.synchronizations);
  // For the parent: the iteration before the division (the second: the division is made at
  // its last run), the last one, and the memory.
  std::printf("result %s %.6f %.6f %zu %lld\n", scenario.c_str(), times[1], times.back(),
              free_before - free_after, static_cast<long long>(peak));
  std::fflush(stdout);
  for (auto handle : handles) cudnnDestroy(handle);
  return 0;
}

struct Result {
  double before_ms = 0, last_ms = 0;
  std::uint64_t held_bytes = 0, peak_bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Trains convolutions on the cuDNN test doubles under workspace division: ResNet-50 on one "
      "stream, selected eagerly on one handle and lazily on two, and two towers on two streams."};
  std::int64_t batch = 16;
  double total_mib = 256;
  int iterations = 6;
  bool towers = true;
  app.add_option("--batch", batch, "mini-batch size")->check(CLI::Range(1, 256));
  app.add_option("--total-workspace-mib", total_mib, "UCUDNN_TOTAL_WORKSPACE_SIZE, in MiB")
      ->check(CLI::PositiveNumber);
  app.add_option("--iterations", iterations, "training iterations")->check(CLI::Range(3, 100));
  app.add_flag("!--no-towers", towers, "skip the two-tower scenarios");
  CLI11_PARSE(app, argc, argv);

  if (const char* scenario = std::getenv(kChild)) return child(scenario, batch, iterations);

  // Each scenario in a process of its own, preloaded, with a fresh database and trace.
  const auto directory =
      std::filesystem::temp_directory_path() / ("ucudnn-bench-wd-" + std::to_string(getpid()));
  std::filesystem::create_directories(directory);
  const auto total = static_cast<std::uint64_t>(total_mib * (1 << 20));
  std::vector<std::string> scenarios = {"eager", "lazy"};
  if (towers)
    scenarios.insert(scenarios.end(), {"tower-a", "tower-b", "towers-one-stream", "towers"});
  std::map<std::string, Result> results;
  int status = 0;
  for (const auto& scenario : scenarios) {
    const auto database = (directory / (scenario + ".db")).string();
    const auto trace = (directory / (scenario + ".trace")).string();
    const std::string command =
        std::string("env ") + kChild + "=" + scenario + " LD_PRELOAD=" UCUDNN_PRELOAD +
        " LD_LIBRARY_PATH=" UCUDNN_FAKECUDA_DIR + " FAKECUDA_COMPUTE=0 FAKECUDA_TRACE=" + trace +
        " UCUDNN_DATABASE=" + database + " UCUDNN_TOTAL_WORKSPACE_SIZE=" + std::to_string(total) +
        " " + std::filesystem::read_symlink("/proc/self/exe").string() + " --batch " +
        std::to_string(batch) + " --iterations " + std::to_string(iterations);
    std::FILE* output = popen(command.c_str(), "r");
    if (!output) return 1;
    char line[4096];
    while (std::fgets(line, sizeof line, output)) {
      char name[64];
      Result r;
      unsigned long long held = 0;
      long long peak = 0;
      if (std::sscanf(line, "result %63s %lf %lf %llu %lld", name, &r.before_ms, &r.last_ms, &held,
                      &peak) == 5) {
        r.held_bytes = held;
        r.peak_bytes = static_cast<std::uint64_t>(std::max(peak, 0LL));
        results[name] = r;
      } else {
        std::fputs(line, stdout);
      }
    }
    status |= pclose(output);
  }
  std::filesystem::remove_all(directory);
  if (status != 0) return 1;
  const auto mib = [](std::uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  for (const char* one_stream : {"eager", "lazy"}) {
    const Result& r = results[one_stream];
    std::printf("%s, one stream: divided %.3f ms against %.3f ms before the division: %.3fx\n",
                one_stream, r.last_ms, r.before_ms, r.last_ms / r.before_ms);
  }
  if (towers) {
    const Result &a = results["tower-a"], &b = results["tower-b"],
                 &serial = results["towers-one-stream"], &apart = results["towers"];
    std::printf(
        "towers: their fastest plans need %.1f + %.1f = %.1f MiB against a total of %.1f MiB; "
        "on two streams %.3f ms (%.1f MiB held, at most %.1f MiB) against %.3f ms through one "
        "buffer: %.3fx\n",
        mib(a.held_bytes), mib(b.held_bytes), mib(a.held_bytes + b.held_bytes), mib(total),
        apart.last_ms, mib(apart.held_bytes), mib(apart.peak_bytes), serial.last_ms,
        serial.last_ms / apart.last_ms);
  }
  return 0;
}
