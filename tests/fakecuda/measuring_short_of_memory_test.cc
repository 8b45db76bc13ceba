// The cuDNN benchmarker on a device short of memory, as the shim measures beside an application
// that holds most of it: what could not be allocated for one kernel is tried again for the next.
// The suite runs on a 64 MiB device without arithmetic (CMakeLists.txt).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/benchmarker.h"
#include "core/engine_name.h"
#include "cost_model.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::DeviceBuffer;
using testing::Handle;

KernelKey forward_kernel(std::int64_t channels) {
  return KernelKey{Operation::kForward,
                   make_conv2d_problem({8, channels, 16, 16, channels, 3, 3, 1, 1})};
}

// The doubles' GEMM engine (im2col: its workspace grows with the micro-batch).
std::string gemm_engine() {
  for (int a = 0; a < algorithm_count(Operation::kForward); ++a)
    if (std::string(algorithm_model(Operation::kForward, a)->name) == "GEMM")
      return "eng" + std::to_string(a);
  return "none";
}

cudnn::CudnnBenchmarker benchmarker(const Handle& handle) {
  return cudnn::CudnnBenchmarker(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                 DeviceFingerprint{}, {});
}

// A workspace that did not fit while the application held the memory was refused for the rest
// of the process: every later kernel lost the configurations that need as much, and a bench on
// a busy device made no plan.
TEST(MeasuringShortOfMemory, AWorkspaceThatDidNotFitOnceIsTriedAgainForTheNextKernel) {
  Handle handle;
  auto device = benchmarker(handle);
  const KernelKey first = forward_kernel(8), second = forward_kernel(16);
  // A configuration whose workspace at the full batch grows with the channels.
  std::string name;
  std::uint64_t first_bytes = 0;
  for (const auto& candidate : device.algorithms(first)) {
    const auto engine = EngineName::parse(candidate);
    ASSERT_TRUE(engine) << candidate;
    const int algorithm = static_cast<int>(engine->engine);
    const Modeled a = model_engine(first, algorithm, 1), b = model_engine(second, algorithm, 1);
    if (engine->knobs.empty() && a.supported && b.supported && a.workspace_bytes > 0 &&
        b.workspace_bytes >= a.workspace_bytes) {
      name = candidate;
      first_bytes = a.workspace_bytes;
      break;
    }
  }
  ASSERT_FALSE(name.empty()) << "no configuration of the doubles with a workspace to test";

  std::size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  {
    // The application holds all but room for the tensors of the first kernel.
    const std::size_t tensors = 3 * first.problem.x.span_elements() * sizeof(float);
    DeviceBuffer held(free - tensors - first_bytes / 2);
    EXPECT_THROW(device.benchmark(first, name, 8), MeasurementUnavailable);
  }
  const auto measured = device.benchmark(second, name, 8);
  ASSERT_TRUE(measured) << name << " measured on the second kernel once the memory was free";
  EXPECT_GE(measured->workspace_bytes, first_bytes);
}

// Beside the full batch's tensors (33.6 MB) the workspace of 4 images (37.7 MB) does not fit the
// 64 MiB device; beside the 4 images' own tensors (8.4 MB) it does.
TEST(MeasuringShortOfMemory, AMicroBatchTheFullBatchsTensorsLeaveNoRoomForIsMeasuredOnItsOwn) {
  Handle handle;
  auto device = benchmarker(handle);
  const KernelKey kernel{Operation::kForward,
                         make_conv2d_problem({16, 64, 64, 64, 64, 3, 3, 1, 1})};
  const std::string gemm = gemm_engine();
  const Modeled m = model_engine(kernel.with_batch(4), std::stoi(gemm.substr(3)), 1);
  ASSERT_TRUE(m.supported);
  ASSERT_GT(m.workspace_bytes, 30'000'000u);
  const auto measured = device.benchmark(kernel, gemm, 4);
  ASSERT_TRUE(measured) << gemm << " at 4 images";
  EXPECT_EQ(measured->workspace_bytes, m.workspace_bytes);
  // The full batch and the other micro-batches still measure.
  EXPECT_TRUE(device.benchmark(kernel, gemm, 2));
}

// What needs more than the device's whole memory never runs there: "not supported" on this device
// (whose memory size is in its fingerprint), remembered, not a measurement to take another time.
TEST(MeasuringShortOfMemory, WhatNeedsMoreThanTheWholeDeviceIsNotSupportedThere) {
  Handle handle;
  auto device = benchmarker(handle);
  // 8 images of GEMM's workspace: 75.5 MB.
  const KernelKey kernel{Operation::kForward,
                         make_conv2d_problem({16, 64, 64, 64, 64, 3, 3, 1, 1})};
  std::optional<Measurement> measured;
  EXPECT_NO_THROW(measured = device.benchmark(kernel, gemm_engine(), 8));
  EXPECT_FALSE(measured);
  // One image's tensors: 76.5 MB.
  const KernelKey huge{Operation::kForward,
                       make_conv2d_problem({2, 512, 128, 128, 512, 3, 3, 1, 1})};
  for (const auto& name : device.algorithms(huge)) {
    EXPECT_NO_THROW(measured = device.benchmark(huge, name, 1)) << name;
    EXPECT_FALSE(measured) << name;
  }
}

}  // namespace
}  // namespace ucudnn::fakecuda
