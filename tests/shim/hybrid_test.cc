// CPU/GPU hybrid end to end (UCUDNN_HYBRID, set by CTest: "on" for shim.hybrid, "off" for
// shim.hybrid_off): a legacy-API program on the cuDNN/CUDA test doubles whose convolutions,
// with the virtual algorithm, give the batch's last samples to the CPU backend. Results equal
// the doubles' own undivided call for all three operations and alpha/beta (BackwardFilter beta
// 0, 0.25 and 1); the GPU's calls below the shim cover fewer samples than the batch under "on"
// and the whole batch under "off"; the application's own later work on its stream sees both
// shares (the doubles run queued work only when the host waits for it, so a missing join shows
// as stale results); a steady-state call allocates and synchronizes nothing; and during CUDA
// graph capture the GPU takes the whole batch.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "device_harness.h"
#include "support/random_seed.h"
#include "support/subprocess.h"
#include "support/temp_folder.h"

namespace {

using namespace ucudnn::testing;

void check(cudnnStatus_t status, const char* what) {
  ASSERT_EQ(status, CUDNN_STATUS_SUCCESS) << what << ": " << cudnnGetErrorString(status);
}

enum class Op { kForward, kBackwardData, kBackwardFilter };

const char* name_of(Op op) {
  return op == Op::kForward        ? "Forward"
         : op == Op::kBackwardData ? "BackwardData"
                                   : "BackwardFilter";
}

bool hybrid_on() {
  const char* value = std::getenv("UCUDNN_HYBRID");
  return value && std::string(value) == "on";
}

class Hybrid : public ::testing::Test {
 protected:
  static constexpr int kN = 8, kC = 3, kK = 4, kSize = 10, kFilter = 3;

  void SetUp() override {
    ASSERT_TRUE(std::getenv("FAKECUDA_TRACE")) << "CTest sets FAKECUDA_TRACE";
    ASSERT_TRUE(std::getenv("UCUDNN_HYBRID")) << "CTest sets UCUDNN_HYBRID";
    Dl_info info{};
    ASSERT_TRUE(dladdr(reinterpret_cast<const void*>(&cudnnConvolutionForward), &info));
    ASSERT_NE(std::string(info.dli_fname).find("libucudnn_preload.so"), std::string::npos)
        << "run this test with LD_PRELOAD=libucudnn_preload.so (CTest does)";
    check(cudnnCreate(&handle), "cudnnCreate");
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    check(cudnnSetStream(handle, stream), "cudnnSetStream");
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
  }
  void TearDown() override {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
    if (handle) cudnnDestroy(handle);
    if (stream) cudaStreamDestroy(stream);
  }
  // Each test its own shape (channels `k`): the process shares one in-memory store.
  void make_layer(int k) {
    k_ = k;
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, kN, kC, kSize, kSize);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, kN, k, kSize, kSize);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, kC, kFilter, kFilter);
    cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    for (auto* data : {&x_data, &w_data, &y_data}) *data = nullptr;
    x_data = buffers.allocate(x_count());
    w_data = buffers.allocate(w_count());
    y_data = buffers.allocate(y_count());
    fill(x_data, x_count(), random.engine());
    fill(w_data, w_count(), random.engine());
    fill(y_data, y_count(), random.engine());
  }
  std::size_t x_count() const { return std::size_t(kN) * kC * kSize * kSize; }
  std::size_t y_count() const { return std::size_t(kN) * k_ * kSize * kSize; }
  std::size_t w_count() const { return std::size_t(k_) * kC * kFilter * kFilter; }
  std::size_t output_count(Op op) const {
    return op == Op::kForward ? y_count() : op == Op::kBackwardData ? x_count() : w_count();
  }
  void* output(Op op) const {
    return op == Op::kForward ? y_data : op == Op::kBackwardData ? x_data : w_data;
  }

  // The shim's plan for `op`: the virtual algorithm first, and the workspace it needs.
  std::pair<int, std::size_t> plan(Op op) {
    int returned = 0;
    switch (op) {
      case Op::kForward: {
        cudnnConvolutionFwdAlgoPerf_t r[1];
        check(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 1, &returned, r),
              "Get_v7");
        return {r[0].algo, r[0].memory};
      }
      case Op::kBackwardData: {
        cudnnConvolutionBwdDataAlgoPerf_t r[1];
        check(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w, y, conv, x, 1, &returned, r),
              "Get_v7");
        return {r[0].algo, r[0].memory};
      }
      case Op::kBackwardFilter: {
        cudnnConvolutionBwdFilterAlgoPerf_t r[1];
        check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x, y, conv, w, 1, &returned, r),
              "Get_v7");
        return {r[0].algo, r[0].memory};
      }
    }
    return {};
  }

  // `op` with `algorithm` through the shim (shim = true) or the double's own entry points.
  cudnnStatus_t run(Op op, bool shim, int algorithm, void* workspace, std::size_t bytes,
                    float alpha, float beta) {
    switch (op) {
      case Op::kForward: {
        auto* f = shim ? &cudnnConvolutionForward
                       : real<decltype(cudnnConvolutionForward)>("cudnnConvolutionForward");
        return f(handle, &alpha, x, x_data, w, w_data, conv,
                 static_cast<cudnnConvolutionFwdAlgo_t>(algorithm), workspace, bytes, &beta, y,
                 y_data);
      }
      case Op::kBackwardData: {
        auto* f =
            shim ? &cudnnConvolutionBackwardData
                 : real<decltype(cudnnConvolutionBackwardData)>("cudnnConvolutionBackwardData");
        return f(handle, &alpha, w, w_data, y, y_data, conv,
                 static_cast<cudnnConvolutionBwdDataAlgo_t>(algorithm), workspace, bytes, &beta, x,
                 x_data);
      }
      case Op::kBackwardFilter: {
        auto* f =
            shim ? &cudnnConvolutionBackwardFilter
                 : real<decltype(cudnnConvolutionBackwardFilter)>("cudnnConvolutionBackwardFilter");
        return f(handle, &alpha, x, x_data, y, y_data, conv,
                 static_cast<cudnnConvolutionBwdFilterAlgo_t>(algorithm), workspace, bytes, &beta,
                 w, w_data);
      }
    }
    return CUDNN_STATUS_BAD_PARAM;
  }

  // The output as the application reads it: a copy queued on its own stream after the call.
  std::vector<float> read_on_stream(Op op) {
    const std::size_t count = output_count(op);
    float* pinned = nullptr;
    EXPECT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), count * sizeof(float)),
              cudaSuccess);
    EXPECT_EQ(
        cudaMemcpyAsync(pinned, output(op), count * sizeof(float), cudaMemcpyDeviceToHost, stream),
        cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    std::vector<float> result(pinned, pinned + count);
    cudaFreeHost(pinned);
    return result;
  }

  // Runs `op` through the shim's plan and the double's undivided IMPLICIT_GEMM from the same
  // output, and compares; returns the batches the GPU's convolutions covered in the planned call.
  std::vector<long long> compare(Op op, float alpha, float beta) {
    SCOPED_TRACE(std::string(name_of(op)) + " alpha " + std::to_string(alpha) + " beta " +
                 std::to_string(beta));
    const auto [algorithm, bytes] = plan(op);
    void* workspace = bytes ? buffers.allocate(bytes / sizeof(float) + 1) : nullptr;
    const auto before = read(output(op), output_count(op));

    const std::size_t start = trace_size();
    EXPECT_EQ(run(op, true, algorithm, workspace, bytes, alpha, beta), CUDNN_STATUS_SUCCESS);
    const auto planned = read_on_stream(op);
    const auto batches = traced_batches(start);

    // The same call undivided, from the same output.
    EXPECT_EQ(cudaMemcpy(output(op), before.data(), before.size() * sizeof(float),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    std::size_t reference_bytes = 0;
    void* reference_workspace = nullptr;
    if (op == Op::kBackwardFilter) {
      real<decltype(cudnnGetConvolutionBackwardFilterWorkspaceSize)>(
          "cudnnGetConvolutionBackwardFilterWorkspaceSize")(
          handle, x, y, conv, w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, &reference_bytes);
      if (reference_bytes) reference_workspace = buffers.allocate(reference_bytes / 4 + 1);
    }
    EXPECT_EQ(run(op, false, 0, reference_workspace, reference_bytes, alpha, beta),
              CUDNN_STATUS_SUCCESS);
    const auto expected = read_on_stream(op);
    EXPECT_LT(relative_error(planned, expected), 1e-5);
    return batches;
  }

  void expect_split(const std::vector<long long>& batches) {
    const long long covered = std::accumulate(batches.begin(), batches.end(), 0LL);
    if (hybrid_on()) {
      EXPECT_LT(covered, kN) << "the GPU computed every sample: no share went to the CPU";
    } else {
      EXPECT_EQ(covered, kN);
    }
  }

  SeededRandom random;
  cudnnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  void *x_data = nullptr, *w_data = nullptr, *y_data = nullptr;
  int k_ = 0;
  DeviceBuffers buffers;
};

TEST_F(Hybrid, ForwardEqualsTheUndividedCall) {
  make_layer(4);
  for (const float beta : {0.0f, 0.5f}) expect_split(compare(Op::kForward, 0.75f, beta));
}

TEST_F(Hybrid, BackwardDataEqualsTheUndividedCall) {
  make_layer(5);
  for (const float beta : {0.0f, 0.5f}) expect_split(compare(Op::kBackwardData, 1.25f, beta));
}

TEST_F(Hybrid, BackwardFilterSumsBothSharesWithTheCallersBeta) {
  make_layer(6);
  for (const float beta : {0.0f, 0.25f, 1.0f})
    expect_split(compare(Op::kBackwardFilter, 0.5f, beta));
}

// Once planned, a call queues its work and returns: no allocation, no synchronization.
TEST_F(Hybrid, SteadyStateAllocatesAndSynchronizesNothing) {
  make_layer(7);
  for (const Op op : {Op::kForward, Op::kBackwardData, Op::kBackwardFilter}) {
    SCOPED_TRACE(name_of(op));
    const auto [algorithm, bytes] = plan(op);
    void* workspace = bytes ? buffers.allocate(bytes / sizeof(float) + 1) : nullptr;
    ASSERT_EQ(run(op, true, algorithm, workspace, bytes, 1, 0), CUDNN_STATUS_SUCCESS);
    const std::size_t start = trace_size();
    for (int i = 0; i < 3; ++i)
      ASSERT_EQ(run(op, true, algorithm, workspace, bytes, 1, 0), CUDNN_STATUS_SUCCESS);
    const auto counts = count_trace(start);
    EXPECT_EQ(counts.allocations, 0);
    EXPECT_EQ(counts.synchronizations, 0);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
}

// The CPU cannot be captured into a graph: during capture the GPU's own plan takes the batch,
// and nothing CUDA forbids during capture happens.
TEST_F(Hybrid, DuringCaptureTheGpuTakesTheWholeBatch) {
  make_layer(9);
  const auto [algorithm, bytes] = plan(Op::kForward);
  void* workspace = bytes ? buffers.allocate(bytes / sizeof(float) + 1) : nullptr;
  ASSERT_EQ(run(Op::kForward, true, algorithm, workspace, bytes, 1, 0), CUDNN_STATUS_SUCCESS);
  const auto expected = read_on_stream(Op::kForward);
  fill(y_data, y_count(), random.engine());

  const std::size_t start = trace_size();
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(run(Op::kForward, true, algorithm, workspace, bytes, 1, 0), CUDNN_STATUS_SUCCESS);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  const auto counts = count_trace(start);
  EXPECT_EQ(counts.capture_violations, 0);
  long long captured = 0;
  for (const auto& line : trace_lines(start)) {
    long long n = 0;
    if (std::sscanf(line.c_str(), "captured op=%*s algo=%*s n=%lld", &n) == 1) captured += n;
  }
  EXPECT_EQ(captured, kN);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  EXPECT_LT(relative_error(read_on_stream(Op::kForward), expected), 1e-5);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

// A split is stored like any plan, under the GPU's and the CPU's fingerprints: the next process
// with the same database runs it without measuring either device again.
TEST_F(Hybrid, AStoredSplitIsReusedByTheNextProcessWithoutMeasuring) {
  if (!hybrid_on() || std::getenv("UCUDNN_HYBRID_CHILD"))
    GTEST_SKIP() << "the parent run of shim.hybrid runs this";
  const TempFolder folder("ucudnn-hybrid");
  const std::string database = folder.file("ucudnn.db");
  auto child = [&] {
    return run_process({"/proc/self/exe", "--gtest_filter=Hybrid.ForwardEqualsTheUndividedCall"},
                       {{"UCUDNN_DATABASE", database},
                        {"UCUDNN_LOG_LEVEL", "info"},
                        {"UCUDNN_HYBRID_CHILD", "1"},
                        {"FAKECUDA_TRACE", folder.file("trace")}});
  };
  const auto first = child();
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_NE(first.err.find("(CPU solver, micro-batch) pairs"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("hybrid plan within"), std::string::npos) << first.err;
  // The exit line counts the split like any plan, and says it is one.
  EXPECT_NE(first.err.find("GPU 0: 1 kernel planned (1 split with the CPU); planned convolution "
                           "time"),
            std::string::npos)
      << first.err;
  // The split is stored as a plan of its own, under both fingerprints.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* query = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT f.canonical, p.configurations FROM plans p JOIN "
                                 "fingerprints f ON f.id = p.fingerprint_id WHERE p.mode = "
                                 "'WR+CPU:on'",
                                 -1, &query, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(query), SQLITE_ROW) << "no hybrid plan stored";
    const std::string fingerprint = reinterpret_cast<const char*>(sqlite3_column_text(query, 0));
    const std::string plan = reinterpret_cast<const char*>(sqlite3_column_text(query, 1));
    EXPECT_NE(fingerprint.find("kind=gpu"), std::string::npos) << fingerprint;
    EXPECT_NE(fingerprint.find("host.kind=cpu"), std::string::npos) << fingerprint;
    EXPECT_NE(plan.find("\"offload\""), std::string::npos) << plan;
    sqlite3_finalize(query);
    sqlite3_close(db);
  }
  const auto second = child();
  ASSERT_EQ(second.status, 0) << second.out << second.err;  // it split again (expect_split)
  EXPECT_EQ(second.err.find("benchmarked"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("hybrid plan within"), std::string::npos) << second.err;
}

// Under WD (shim.hybrid_wd sets UCUDNN_TOTAL_WORKSPACE_SIZE) the splits are among each
// kernel's desirable configurations; under "on" only splits are. Once the division has learned
// the iteration, its kernels give the CPU a share, with the undivided results.
TEST_F(Hybrid, UnderWorkspaceDivisionTheDivisionGivesTheCpuAShare) {
  if (!std::getenv("UCUDNN_TOTAL_WORKSPACE_SIZE")) GTEST_SKIP() << "shim.hybrid_wd runs this";
  make_layer(11);
  const Op ops[] = {Op::kForward, Op::kBackwardData, Op::kBackwardFilter};
  for (int iteration = 0; iteration < 6; ++iteration)
    for (const Op op : ops) {
      const auto [algorithm, bytes] = plan(op);
      EXPECT_EQ(bytes, 0u) << "under WD the arena is ucudnn's";
      ASSERT_EQ(run(op, true, algorithm, nullptr, 0, 1, 0), CUDNN_STATUS_SUCCESS);
    }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  // Six iterations of feeding each operation's output to the next grow the values past float.
  fill(x_data, x_count(), random.engine());
  fill(w_data, w_count(), random.engine());
  fill(y_data, y_count(), random.engine());
  expect_split(compare(Op::kForward, 0.75f, 0.5f));
  expect_split(compare(Op::kBackwardData, 1.25f, 0.0f));
  expect_split(compare(Op::kBackwardFilter, 0.5f, 0.25f));
}

}  // namespace
