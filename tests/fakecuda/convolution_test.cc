// The cuDNN double's convolutions: exact results (cpu_backend's reference on the same
// data), the virtual clock, and the checks only a double can make (pointer ranges inside
// live allocations, the workspace the model demands).
#include <cudnn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <string>

#include "cost_model.h"
#include "fakecuda_hooks.h"
#include "reference.h"
#include "support/printed_text.h"
#include "support/scoped_environment.h"
#include "support/subprocess.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::Descriptors;
using testing::DeviceBuffer;
using testing::Handle;

// Host and device copies of one problem's three tensors, filled with random values.
struct Tensors {
  std::vector<unsigned char> x, w, y;  // host bytes
  DeviceBuffer dx, dw, dy;

  Tensors(const ConvolutionProblem& p, std::mt19937_64& engine)
      : x(testing::random_tensor_bytes(bytes(p, p.x), p.data_type, engine)),
        w(testing::random_tensor_bytes(bytes(p, p.w), p.data_type, engine)),
        y(testing::random_tensor_bytes(bytes(p, p.y), p.data_type, engine)),
        dx(x.size()),
        dw(w.size()),
        dy(y.size()) {
    upload();
  }
  static std::size_t bytes(const ConvolutionProblem& p, const TensorShape& shape) {
    return static_cast<std::size_t>(testing::span_elements(shape)) *
           testing::element_size(p.data_type);
  }
  void upload() {
    ASSERT_EQ(cudaMemcpy(dx.get(), x.data(), x.size(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dw.get(), w.data(), w.size(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dy.get(), y.data(), y.size(), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<unsigned char> download(const DeviceBuffer& buffer) const {
    std::vector<unsigned char> host(buffer.bytes());
    EXPECT_EQ(cudaMemcpy(host.data(), buffer.get(), host.size(), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return host;
  }
};

// alpha and beta as cuDNN takes them: float for float data, double for double data.
struct Scalars {
  float alpha_f, beta_f;
  double alpha_d, beta_d;
  Scalars(const ConvolutionProblem& p, double alpha, double beta)
      : alpha_f(static_cast<float>(alpha)),
        beta_f(static_cast<float>(beta)),
        alpha_d(alpha),
        beta_d(beta),
        is_double(p.data_type == DataType::kDouble) {}
  const void* alpha() const { return is_double ? static_cast<const void*>(&alpha_d) : &alpha_f; }
  const void* beta() const { return is_double ? static_cast<const void*>(&beta_d) : &beta_f; }
  bool is_double;
};

// Runs `operation` with the given pointers (defaults: the tensors' buffers).
cudnnStatus_t run(Operation operation, const Handle& handle, const Descriptors& d, const Scalars& s,
                  int algorithm, const void* x, const void* w, const void* y, void* workspace,
                  size_t workspace_bytes) {
  switch (operation) {
    case Operation::kForward:
      return cudnnConvolutionForward(handle, s.alpha(), d.x, x, d.w, w, d.conv,
                                     static_cast<cudnnConvolutionFwdAlgo_t>(algorithm), workspace,
                                     workspace_bytes, s.beta(), d.y, const_cast<void*>(y));
    case Operation::kBackwardData:
      return cudnnConvolutionBackwardData(handle, s.alpha(), d.w, w, d.y, y, d.conv,
                                          static_cast<cudnnConvolutionBwdDataAlgo_t>(algorithm),
                                          workspace, workspace_bytes, s.beta(), d.x,
                                          const_cast<void*>(x));
    default:
      return cudnnConvolutionBackwardFilter(handle, s.alpha(), d.x, x, d.y, y, d.conv,
                                            static_cast<cudnnConvolutionBwdFilterAlgo_t>(algorithm),
                                            workspace, workspace_bytes, s.beta(), d.w,
                                            const_cast<void*>(w));
  }
}

// The supported algorithms of a kernel, in enum order.
std::vector<int> supported_algorithms(const KernelKey& key) {
  std::vector<int> result;
  for (int a = 0; a < algorithm_count(key.operation); ++a)
    if (model(key, a).supported) result.push_back(a);
  return result;
}

constexpr Operation kOperations[] = {Operation::kForward, Operation::kBackwardData,
                                     Operation::kBackwardFilter};

TEST(FakeCudnnConvolution, ResultsAreTheReferenceAndTimeIsTheModel) {
  ucudnn::testing::SeededRandom random;
  Handle handle;
  double expected_ms = 0;
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start, handle.stream()), cudaSuccess);
  for (int trial = 0; trial < 40; ++trial) {
    const ConvolutionProblem p = testing::random_problem(random);
    Descriptors d(p);
    for (Operation operation : kOperations) {
      const KernelKey key{operation, p};
      SCOPED_TRACE(key.to_string());
      const std::vector<int> algorithms = supported_algorithms(key);
      ASSERT_FALSE(algorithms.empty());
      const int algorithm = algorithms[random.uniform(0, algorithms.size() - 1)];
      const Modeled m = model(key, algorithm);
      const double alpha = random.chance(0.5) ? 1.0 : 0.75;
      const double beta = random.chance(0.5) ? 0.0 : -0.5;
      Tensors t(p, random.engine());
      DeviceBuffer workspace(m.workspace_bytes);
      const Scalars s(p, alpha, beta);
      ASSERT_EQ(run(operation, handle, d, s, algorithm, t.dx.get(), t.dw.get(), t.dy.get(),
                    workspace.get(), m.workspace_bytes),
                CUDNN_STATUS_SUCCESS);
      expected_ms += m.time_ms;
      // The same arithmetic on the host copies, with the scalars as the double saw them.
      cpu::reference_convolution(key, {t.x.data(), t.w.data(), t.y.data()},
                                 {s.is_double ? alpha : s.alpha_f, s.is_double ? beta : s.beta_f});
      const auto& [host, device] = operation == Operation::kForward        ? std::pair{&t.y, &t.dy}
                                   : operation == Operation::kBackwardData ? std::pair{&t.x, &t.dx}
                                                                           : std::pair{&t.w, &t.dw};
      EXPECT_TRUE(t.download(*device) == *host) << "output differs from the reference";
    }
  }
  ASSERT_EQ(cudaEventRecord(stop, handle.stream()), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  float elapsed = 0;
  ASSERT_EQ(cudaEventElapsedTime(&elapsed, start, stop), cudaSuccess);
  EXPECT_FLOAT_EQ(elapsed, static_cast<float>(expected_ms));
  double clock = 0;
  ASSERT_EQ(fakecuda_stream_time(handle.stream(), &clock), cudaSuccess);
  EXPECT_DOUBLE_EQ(clock, expected_ms);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// A hand-computed case, so the test above is not only the reference against itself.
TEST(FakeCudnnConvolution, SumsAWindow) {
  Handle handle;
  const ConvolutionProblem p = make_conv2d_problem({1, 1, 3, 3, 1, 2, 2});
  Descriptors d(p);
  const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1};
  DeviceBuffer dx(sizeof x), dw(sizeof w), dy(4 * sizeof(float));
  ASSERT_EQ(cudaMemcpy(dx.get(), x, sizeof x, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dw.get(), w, sizeof w, cudaMemcpyHostToDevice), cudaSuccess);
  const float alpha = 2, beta = 0;
  ASSERT_EQ(cudnnConvolutionForward(handle, &alpha, d.x, dx.get(), d.w, dw.get(), d.conv,
                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &beta,
                                    d.y, dy.get()),
            CUDNN_STATUS_SUCCESS);
  float y[4];
  ASSERT_EQ(cudaMemcpy(y, dy.get(), sizeof y, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(y[0], 2 * (1 + 2 + 4 + 5));
  EXPECT_EQ(y[3], 2 * (5 + 6 + 8 + 9));
}

class FakeCudnnChecks : public ::testing::Test {
 protected:
  // A 3x3 forward convolution that FFT runs with a workspace.
  FakeCudnnChecks()
      : p(make_conv2d_problem({4, 3, 8, 8, 4, 3, 3, 1, 1})),
        key{Operation::kForward, p},
        d(p),
        engine(7),
        t(p, engine),
        s(p, 1, 0) {}
  static constexpr int kFft = CUDNN_CONVOLUTION_FWD_ALGO_FFT;
  cudnnStatus_t forward(const void* x, void* workspace, size_t bytes, int algorithm = kFft) {
    return run(Operation::kForward, handle, d, s, algorithm, x, t.dw.get(), t.dy.get(), workspace,
               bytes);
  }
  double clock() {
    double ms = -1;
    EXPECT_EQ(fakecuda_stream_time(handle.stream(), &ms), cudaSuccess);
    return ms;
  }

  ConvolutionProblem p;
  KernelKey key;
  Handle handle;
  Descriptors d;
  std::mt19937_64 engine;
  Tensors t;
  Scalars s;
};

TEST_F(FakeCudnnChecks, WorkspaceSmallerThanTheModelIsBadParam) {
  const std::size_t needed = model(key, kFft).workspace_bytes;
  ASSERT_GT(needed, 0u);
  DeviceBuffer workspace(needed);
  EXPECT_EQ(forward(t.dx.get(), workspace.get(), needed - 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(forward(t.dx.get(), nullptr, needed), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(clock(), 0);  // a rejected call takes no time
  EXPECT_EQ(forward(t.dx.get(), workspace.get(), needed), CUDNN_STATUS_SUCCESS);
  EXPECT_DOUBLE_EQ(clock(), model(key, kFft).time_ms);
}

// A micro-batch offset one image too far: x's range leaves its allocation.
TEST_F(FakeCudnnChecks, PointerPastTheAllocationIsBadParam) {
  const std::size_t image = 3 * 8 * 8 * sizeof(float);
  EXPECT_EQ(forward(static_cast<char*>(t.dx.get()) + image, nullptr, 0,
                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM),
            CUDNN_STATUS_BAD_PARAM);
  float host[4];
  EXPECT_EQ(forward(host, nullptr, 0, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM),
            CUDNN_STATUS_BAD_PARAM);  // host memory is not device memory
  const std::size_t needed = model(key, kFft).workspace_bytes;
  DeviceBuffer workspace(needed);
  EXPECT_EQ(forward(t.dx.get(), static_cast<char*>(workspace.get()) + 8, needed),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(clock(), 0);
  char message[512];
  cudnnGetLastErrorString(message, sizeof message);
  EXPECT_NE(std::strstr(message, "workspace"), nullptr) << message;
}

TEST_F(FakeCudnnChecks, AlgorithmsOutsideTheEnumOrTheModelAreRejected) {
  EXPECT_EQ(forward(t.dx.get(), nullptr, 0, 8), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(forward(t.dx.get(), nullptr, 0, -1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(forward(t.dx.get(), nullptr, 0, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT),
            CUDNN_STATUS_NOT_SUPPORTED);
}

TEST_F(FakeCudnnChecks, NullArgumentsAreBadParam) {
  const int gemm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  EXPECT_EQ(forward(nullptr, nullptr, 0, gemm), CUDNN_STATUS_BAD_PARAM);
  const float one = 1, zero = 0;
  auto call = [&](cudnnHandle_t h, const void* alpha, cudnnTensorDescriptor_t x_desc, const void* w,
                  const void* beta, void* y) {
    return cudnnConvolutionForward(h, alpha, x_desc, t.dx.get(), d.w, w, d.conv,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, beta, d.y,
                                   y);
  };
  EXPECT_EQ(call(nullptr, &one, d.x, t.dw.get(), &zero, t.dy.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(call(handle, nullptr, d.x, t.dw.get(), &zero, t.dy.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(call(handle, &one, nullptr, t.dw.get(), &zero, t.dy.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(call(handle, &one, d.x, nullptr, &zero, t.dy.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(call(handle, &one, d.x, t.dw.get(), nullptr, t.dy.get()), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(call(handle, &one, d.x, t.dw.get(), &zero, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(call(handle, &one, d.x, t.dw.get(), &zero, t.dy.get()), CUDNN_STATUS_SUCCESS);
}

using ucudnn::testing::ScopedEnvironment;

TEST_F(FakeCudnnChecks, ComputeOffSkipsTheArithmeticButNotTheClock) {
  ScopedEnvironment compute("FAKECUDA_COMPUTE", "0");
  const std::vector<unsigned char> before = t.download(t.dy);
  const int gemm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  ASSERT_EQ(forward(t.dx.get(), nullptr, 0, gemm), CUDNN_STATUS_SUCCESS);
  EXPECT_TRUE(t.download(t.dy) == before);
  EXPECT_DOUBLE_EQ(clock(), model(key, gemm).time_ms);
}

std::vector<std::string> lines_of(const std::string& path) {
  return ucudnn::testing::lines_in(ucudnn::testing::read_file(path));
}

// One workspace used by convolutions on two streams: a race on a GPU unless the second
// stream waits for the first (an event); the double reports it in the trace.
TEST_F(FakeCudnnChecks, AWorkspaceSharedByUnorderedStreamsIsReportedAsARace) {
  char path[] = "/tmp/fakecuda_trace_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const std::size_t needed = model(key, kFft).workspace_bytes;
  DeviceBuffer workspace(needed), other(needed);
  cudaStream_t first = nullptr, second = nullptr;
  cudaEvent_t done = nullptr;
  ASSERT_EQ(cudaStreamCreate(&first), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&second), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&done), cudaSuccess);
  auto races = [&] {
    std::size_t count = 0;
    for (const auto& line : lines_of(path)) count += line.rfind("race ", 0) == 0;
    return count;
  };
  {
    ScopedEnvironment trace("FAKECUDA_TRACE", path);
    auto on = [&](cudaStream_t stream, void* buffer) {
      ASSERT_EQ(cudnnSetStream(handle, stream), CUDNN_STATUS_SUCCESS);
      ASSERT_EQ(forward(t.dx.get(), buffer, needed), CUDNN_STATUS_SUCCESS);
    };
    on(first, workspace.get());
    on(second, other.get());
    EXPECT_EQ(races(), 0u) << "separate workspaces";
    on(first, workspace.get());
    ASSERT_EQ(cudaEventRecord(done, first), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(second, done, 0), cudaSuccess);
    on(second, workspace.get());
    EXPECT_EQ(races(), 0u) << "ordered by the event";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    on(first, workspace.get());
    on(first, workspace.get());
    EXPECT_EQ(races(), 0u) << "the same stream is ordered";
    on(second, workspace.get());
    EXPECT_EQ(races(), 1u) << "unordered: both may run at once";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    on(first, workspace.get());
    EXPECT_EQ(races(), 1u) << "finished work races with nothing";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ::unlink(path);
  cudnnSetStream(handle, nullptr);
  cudaEventDestroy(done);
  cudaStreamDestroy(first);
  cudaStreamDestroy(second);
}

TEST_F(FakeCudnnChecks, TraceHasOneLinePerEvent) {
  char path[] = "/tmp/fakecuda_trace_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  {
    ScopedEnvironment trace("FAKECUDA_TRACE", path);
    const std::size_t needed = model(key, kFft).workspace_bytes;
    DeviceBuffer workspace(needed + 100);
    ASSERT_EQ(forward(t.dx.get(), workspace.get(), needed + 100), CUDNN_STATUS_SUCCESS);
    int returned = 0;
    cudnnConvolutionBwdFilterAlgoPerf_t perf[7];
    ASSERT_EQ(cudnnFindConvolutionBackwardFilterAlgorithm(handle, d.x, d.y, d.conv, d.w, 7,
                                                          &returned, perf),
              CUDNN_STATUS_SUCCESS);
  }
  const std::vector<std::string> lines = lines_of(path);
  ::unlink(path);
  char conv[256];
  std::snprintf(conv, sizeof conv,
                "conv op=Forward algo=FFT n=4 workspace=%llu needed=%llu time_ms=%.9g alpha=1 "
                "beta=0",
                static_cast<unsigned long long>(model(key, kFft).workspace_bytes + 100),
                static_cast<unsigned long long>(model(key, kFft).workspace_bytes),
                model(key, kFft).time_ms);
  const std::vector<std::string> expected = {
      "malloc bytes=" + std::to_string(model(key, kFft).workspace_bytes + 100) + " ok=1 device=0",
      // The first cuDNN call with tracing on announces the double (it was loaded untraced).
      "fakecuda loaded pid=" + std::to_string(::getpid()), conv,
      "select kind=find op=BackwardFilter n=4",
      "free bytes=" + std::to_string(model(key, kFft).workspace_bytes + 100)};
  EXPECT_EQ(lines, expected);
}

}  // namespace
}  // namespace ucudnn::fakecuda
