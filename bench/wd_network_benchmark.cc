// ucudnn-bench-wd-network: workspace division as frameworks run it, on the cuDNN test doubles.
// ResNet-50's convolutions (Forward, BackwardData and BackwardFilter of every layer) train for
// a few iterations under UCUDNN_TOTAL_WORKSPACE_SIZE, the algorithms selected
//   eager: up front, everything on one handle;
//   lazy:  right before each layer's first call, forward on one handle and thread, backward on
//          another (PyTorch's autograd thread).
// Each runs in a process of its own with a fresh database, under LD_PRELOAD, so both learn the
// network from its calls. Reported per scenario: the time of each iteration on the doubles'
// clock (the cost model: what the division buys), the device memory ucudnn holds at the end
// (the arena), and what the last iteration caused below the shim (allocations, frees,
// synchronizations: none once learned). The doubles skip the arithmetic (FAKECUDA_COMPUTE=0).
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "networks/network.h"

namespace {

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

// What the doubles' trace records between two of its sizes.
struct Below {
  int convolutions = 0, allocations = 0, frees = 0, synchronizations = 0;
};
std::size_t trace_size() {
  std::error_code error;
  const auto size = std::filesystem::file_size(std::getenv("FAKECUDA_TRACE"), error);
  return error ? 0 : static_cast<std::size_t>(size);
}
Below below_between(std::size_t from, std::size_t to) {
  Below below;
  std::FILE* file = std::fopen(std::getenv("FAKECUDA_TRACE"), "r");
  if (!file) return below;
  std::fseek(file, static_cast<long>(from), SEEK_SET);
  char line[1024];
  while (static_cast<std::size_t>(std::ftell(file)) < to && std::fgets(line, sizeof line, file)) {
    const std::string text(line);
    below.convolutions += text.rfind("conv ", 0) == 0;
    below.allocations += text.rfind("malloc ", 0) == 0 && text.find(" ok=1") != std::string::npos;
    below.frees += text.rfind("free", 0) == 0;
    below.synchronizations += text.rfind("free", 0) == 0 || text.rfind("sync ", 0) == 0;
  }
  std::fclose(file);
  return below;
}

int child(const std::string& scenario, std::int64_t batch, int iterations) {
  const bool lazy = scenario == "lazy";
  const auto network = ucudnn::resnet50_convolutions(batch);
  std::size_t xs = 0, ys = 0, ws = 0;
  for (const auto& layer : network) {
    xs = std::max<std::size_t>(xs, layer.problem.x.element_count());
    ys = std::max<std::size_t>(ys, layer.problem.y.element_count());
    ws = std::max<std::size_t>(ws, layer.problem.w.element_count());
  }
  Buffers buffers{};
  for (auto [pointer, floats] : {std::pair{&buffers.x, xs},
                                 {&buffers.dx, xs},
                                 {&buffers.y, ys},
                                 {&buffers.dy, ys},
                                 {&buffers.w, ws},
                                 {&buffers.dw, ws}})
    CHECK(cudaMalloc(pointer, floats * sizeof(float)));
  std::vector<std::unique_ptr<Layer>> layers;
  for (const auto& layer : network) layers.push_back(std::make_unique<Layer>(layer.problem));

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  std::vector<cudnnHandle_t> handles(lazy ? 2 : 1);
  for (auto& handle : handles) {
    CHECK(cudnnCreate(&handle));
    CHECK(cudnnSetStream(handle, stream));
  }
  const auto forward_handle = handles.front(), backward_handle = handles.back();
  std::size_t free_before = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_before, &total));
  if (!lazy)
    for (auto& layer : layers)
      for (int operation = 0; operation < 3; ++operation) layer->select(forward_handle, operation);

  cudaEvent_t start, end;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&end));
  std::printf("%s:", scenario.c_str());
  Below last;
  for (int i = 0; i < iterations; ++i) {
    const auto from = trace_size();
    CHECK(cudaEventRecord(start, stream));
    auto step = [&](cudnnHandle_t handle, Layer& layer, int operation) {
      if (lazy) layer.select(handle, operation);
      run(handle, layer, buffers, operation);
    };
    auto on_thread = [&](auto work) {
      if (lazy)
        std::thread(work).join();  // the framework's forward and autograd threads in turn
      else
        work();
    };
    on_thread([&] {
      for (auto& layer : layers) step(forward_handle, *layer, 0);
    });
    on_thread([&] {
      for (auto it = layers.rbegin(); it != layers.rend(); ++it)
        for (int operation : {1, 2}) step(backward_handle, **it, operation);
    });
    CHECK(cudaEventRecord(end, stream));
    const auto to = trace_size();  // before this program's own synchronization
    CHECK(cudaEventSynchronize(end));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, end));
    std::printf(" %.3f", ms);
    last = below_between(from, to);
  }
  std::size_t free_after = 0;
  CHECK(cudaMemGetInfo(&free_after, &total));
  std::printf(
      " ms per iteration; %.1f MiB held; last iteration: %d convolutions, %d allocations, %d "
      "frees, %d synchronizations (below the shim)\n",
      static_cast<double>(free_before - free_after) / (1 << 20), last.convolutions,
      last.allocations, last.frees, last.synchronizations);
  std::fflush(stdout);
  for (auto handle : handles) cudnnDestroy(handle);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Trains ResNet-50's convolutions on the cuDNN test doubles under workspace division, "
      "algorithms selected eagerly on one handle and lazily on two."};
  std::int64_t batch = 16;
  double total_mib = 256;
  int iterations = 6;
  app.add_option("--batch", batch, "mini-batch size")->check(CLI::Range(1, 256));
  app.add_option("--total-workspace-mib", total_mib, "UCUDNN_TOTAL_WORKSPACE_SIZE, in MiB")
      ->check(CLI::PositiveNumber);
  app.add_option("--iterations", iterations, "training iterations")->check(CLI::Range(3, 100));
  CLI11_PARSE(app, argc, argv);

  if (const char* scenario = std::getenv(kChild)) return child(scenario, batch, iterations);

  // Each scenario in a process of its own, preloaded, with a fresh database and trace.
  const auto directory =
      std::filesystem::temp_directory_path() / ("ucudnn-bench-wd-" + std::to_string(getpid()));
  std::filesystem::create_directories(directory);
  int status = 0;
  for (const char* scenario : {"eager", "lazy"}) {
    const auto database = (directory / (std::string(scenario) + ".db")).string();
    const auto trace = (directory / (std::string(scenario) + ".trace")).string();
    const std::string command =
        std::string("env ") + kChild + "=" + scenario + " LD_PRELOAD=" UCUDNN_PRELOAD +
        " LD_LIBRARY_PATH=" UCUDNN_FAKECUDA_DIR + " FAKECUDA_COMPUTE=0 FAKECUDA_TRACE=" + trace +
        " UCUDNN_DATABASE=" + database + " UCUDNN_TOTAL_WORKSPACE_SIZE=" +
        std::to_string(static_cast<std::uint64_t>(total_mib * (1 << 20))) + " " +
        std::filesystem::read_symlink("/proc/self/exe").string() + " --batch " +
        std::to_string(batch) + " --iterations " + std::to_string(iterations);
    status |= std::system(command.c_str());
  }
  std::filesystem::remove_all(directory);
  return status == 0 ? 0 : 1;
}
