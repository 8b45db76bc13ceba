// On a real GPU (skipped without one): measuring behind the gate (cudnn/stream_gate.h). cuDNN's
// plan executions never wait for their own stream, so no gate opens by itself, and a candidate
// measured behind it reads less than measured without it by the host's issuing of each run.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/convolution_problem.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/measuring_account.h"

namespace ucudnn::cudnn {
namespace {

class RealCudnnGate : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cudnn_api().complete()) GTEST_SKIP() << "libcudnn.so.9 not loadable";
    if (!cuda_runtime().complete()) GTEST_SKIP() << "libcudart not loadable";
    int devices = 0;
    if (cuda_runtime().cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
      GTEST_SKIP() << "no GPU";
    ASSERT_EQ(cudnn_api().cudnnCreate(&handle_), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cuda_runtime().cudaStreamCreate(&stream_), cudaSuccess);
    ASSERT_EQ(cudnn_api().cudnnSetStream(handle_, stream_), CUDNN_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (handle_) cudnn_api().cudnnDestroy(handle_);
    if (stream_) cuda_runtime().cudaStreamDestroy(stream_);
  }
  cudnnHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

TEST_F(RealCudnnGate, NoGateOpensByItselfAndMeasurementsLoseTheHostsIssuing) {
  const KernelKey kernel{Operation::kForward,
                         make_conv2d_problem({32, 64, 28, 28, 64, 3, 3, 1, 1})};
  CudaRuntime without_gate = cuda_runtime();
  without_gate.cudaLaunchHostFunc = {};
  GpuBenchmarkOptions options;
  options.repeats = 9;
  CudnnBenchmarker gated(cudnn_api(), cuda_runtime(), handle_, DeviceFingerprint{}, options);
  CudnnBenchmarker ungated(cudnn_api(), without_gate, handle_, DeviceFingerprint{}, options);
  auto candidates = gated.algorithms(kernel);
  if (candidates.size() > 8) candidates.resize(8);
  ASSERT_FALSE(candidates.empty());
  double sum_gated = 0, sum_ungated = 0;
  int pairs = 0;
  const std::uint64_t ungated_before = measuring_account().ungated;
  for (const std::int64_t images : {1, 4, 32}) {
    for (const auto& name : candidates) {
      std::optional<Measurement> a, b;
      {
        const MeasuringTime measuring(kernel.to_string());
        a = gated.benchmark(kernel, name, images);
      }
      EXPECT_EQ(measuring_account().ungated, ungated_before) << name << " at " << images;
      b = ungated.benchmark(kernel, name, images);
      if (!a || !b) continue;
      std::printf("%s at %lld images: %.4f ms behind the gate, %.4f ms without\n", name.c_str(),
                  static_cast<long long>(images), a->time_ms, b->time_ms);
      sum_gated += a->time_ms;
      sum_ungated += b->time_ms;
      ++pairs;
    }
  }
  ASSERT_GT(pairs, 0);
  std::printf(
      "real cuDNN, timing behind the gate: %d pairs %.4f ms, without it %.4f ms (%.1f us "
      "a run)\n",
      pairs, sum_gated, sum_ungated, (sum_ungated - sum_gated) / pairs * 1000);
  EXPECT_LT(sum_gated, sum_ungated);
}

}  // namespace
}  // namespace ucudnn::cudnn
