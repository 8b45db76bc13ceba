// The hybrid executor on the cuDNN/CUDA test doubles with a host backend of the test's own
// (the CPU backend's solvers, and a switch that makes them fail): every split from the GPU
// alone to the CPU alone gives the undivided result for all three operations, and a failing
// CPU share is still computed (by the reference) while later calls run on the GPU alone.
#include "shim/hybrid_executor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "cpu_benchmarker.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "device_harness.h"
#include "plan_executor.h"
#include "reference.h"
#include "support/random_seed.h"
#include "thread_pool.h"

namespace ucudnn::shim {
namespace {

using namespace ucudnn::testing;

class TestHost final : public HostBackend {
 public:
  Benchmarker& benchmarker() override { return benchmarker_; }
  std::size_t workspace_bytes(const KernelKey& kernel, const Configuration& c) override {
    return cpu::configuration_workspace_bytes(kernel, c);
  }
  void run(const KernelKey& kernel, const Configuration& c, const Tensors& t, double alpha,
           double beta, void* workspace, std::size_t bytes) override {
    ++runs;
    if (fail) throw std::runtime_error("injected failure");
    std::this_thread::sleep_for(delay);
    cpu::run_configuration(kernel, c, {t.x, t.w, t.y}, {alpha, beta}, {workspace, bytes}, pool_);
  }
  void run_reference(const KernelKey& kernel, const Tensors& t, double alpha,
                     double beta) override {
    ++references;
    cpu::reference_convolution(kernel, {t.x, t.w, t.y}, {alpha, beta});
  }
  bool fail = false;
  std::chrono::milliseconds delay{0};  // added to each share's computation
  int runs = 0, references = 0;

 private:
  cpu::ThreadPool pool_{1};
  cpu::CpuBenchmarker benchmarker_{pool_};
};

class HybridExecutorTest : public ::testing::Test {
 protected:
  static constexpr int kN = 6;
  void SetUp() override {
    ASSERT_TRUE(cudnn::cudnn_api().complete()) << cudnn::cudnn_api().missing;
    ASSERT_EQ(cudnn::cudnn_api().cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    ASSERT_EQ(cudnn::cudnn_api().cudnnSetStream(handle, stream), CUDNN_STATUS_SUCCESS);
  }
  void TearDown() override {
    cudnn::cudnn_api().cudnnDestroy(handle);
    cudaStreamDestroy(stream);
  }
  static KernelKey kernel(Operation operation) {
    return {operation, make_conv2d_problem({kN, 3, 7, 7, 4, 3, 3, 1, 1})};
  }
  // Algorithm 0 of each operation (IMPLICIT_GEMM, ALGO_0).
  std::vector<MicroConfiguration> gpu(std::int64_t samples) const {
    if (samples == 0) return {};
    return {
        {"cudnn", operation == Operation::kForward ? "IMPLICIT_GEMM" : "ALGO_0", samples, 1, 0}};
  }
  Operation operation = Operation::kForward;
  // Runs `executor` with alpha 0.5 and `beta` on fresh data, and the double's undivided
  // IMPLICIT_GEMM on the same; returns the relative error and the GPU samples traced.
  std::pair<double, long long> compare(const cudnn::PlanExecutor& executor, const KernelKey& k,
                                       float beta) {
    const auto& p = k.problem;
    const std::size_t counts[3] = {p.x.span_elements(), p.w.span_elements(), p.y.span_elements()};
    void* data[3];
    for (int i = 0; i < 3; ++i) {
      data[i] = buffers.allocate(counts[i]);
      fill(data[i], counts[i], random.engine());
    }
    const int out = k.operation == Operation::kForward        ? 2
                    : k.operation == Operation::kBackwardData ? 0
                                                              : 1;
    const auto before = read(data[out], counts[out]);
    void* workspace = buffers.allocate(executor.workspace_bytes() / 4 + 1);
    const float alpha = 0.5f;
    const std::size_t start = trace_size();
    EXPECT_EQ(executor
                  .run(handle, &alpha, {data[0], data[1], data[2]}, workspace,
                       executor.workspace_bytes(), &beta)
                  .status,
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    const auto batches = traced_batches(start);
    const auto planned = read(data[out], counts[out]);
    EXPECT_EQ(cudaMemcpy(data[out], before.data(), counts[out] * 4, cudaMemcpyHostToDevice),
              cudaSuccess);
    const cudnn::PlanExecutor undivided(cudnn::cudnn_api(), handle, k, Configuration{gpu(kN)});
    EXPECT_EQ(undivided
                  .run(handle, &alpha, {data[0], data[1], data[2]}, workspace,
                       executor.workspace_bytes(), &beta)
                  .status,
              CUDNN_STATUS_SUCCESS);
    const auto expected = read(data[out], counts[out]);
    return {relative_error(planned, expected),
            std::accumulate(batches.begin(), batches.end(), 0LL)};
  }

  SeededRandom random;
  cudnnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  DeviceBuffers buffers;
  TestHost host;
};

TEST_F(HybridExecutorTest, EverySplitFromGpuAloneToCpuAloneGivesTheUndividedResult) {
  for (const auto op :
       {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
    operation = op;
    const auto k = kernel(operation);
    for (std::int64_t cpu = 1; cpu <= kN; ++cpu) {
      const Configuration split{gpu(kN - cpu),
                                OffloadedShare{{{"cpu", "DIRECT", cpu, 1, 0}}, 0, 0}};
      const HybridExecutor executor(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle, k,
                                    Configuration{gpu(kN)}, split, host);
      for (const float beta : {0.0f, 0.25f, 1.0f}) {
        SCOPED_TRACE(std::string(name_of(operation)) + " CPU share " + std::to_string(cpu) +
                     " beta " + std::to_string(beta));
        const auto [error, gpu_samples] = compare(executor, k, beta);
        EXPECT_LT(error, 1e-5);
        EXPECT_EQ(gpu_samples, kN - cpu);
      }
    }
  }
}

TEST_F(HybridExecutorTest, AFailingCpuShareIsStillComputedAndTheGpuTakesOverAfter) {
  const auto k = kernel(Operation::kForward);
  const Configuration split{gpu(kN - 2), OffloadedShare{{{"cpu", "DIRECT", 2, 1, 0}}, 0, 0}};
  const HybridExecutor executor(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle, k,
                                Configuration{gpu(kN)}, split, host);
  host.fail = true;
  const auto [error, gpu_samples] = compare(executor, k, 0.5f);
  EXPECT_LT(error, 1e-5);
  EXPECT_EQ(gpu_samples, kN - 2);
  EXPECT_EQ(host.runs, 1);
  EXPECT_EQ(host.references, 1);
  // The next call does not try the CPU again.
  const auto [error_after, gpu_after] = compare(executor, k, 0.0f);
  EXPECT_LT(error_after, 1e-5);
  EXPECT_EQ(gpu_after, kN);
  EXPECT_EQ(host.runs, 1);
}

// The executor's account of the CPU's time inside the calls (what ucudnn-bench-hybrid-gpu sets
// beside the plan's T_cpu): the host functions' own time, none before a share ran, and none
// for a failed share.
TEST_F(HybridExecutorTest, TheCpuShareIsTimedWhereItRuns) {
  const auto k = kernel(Operation::kForward);
  const Configuration split{gpu(kN - 2), OffloadedShare{{{"cpu", "DIRECT", 2, 1, 0}}, 0, 0}};
  const HybridExecutor executor(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle, k,
                                Configuration{gpu(kN)}, split, host);
  EXPECT_FALSE(executor.median_host_share_ms());
  host.delay = std::chrono::milliseconds(30);
  for (int call = 0; call < 2; ++call) EXPECT_LT(compare(executor, k, 0.0f).first, 1e-5);
  ASSERT_TRUE(executor.median_host_share_ms());
  EXPECT_GE(*executor.median_host_share_ms(), 30.0);
  EXPECT_LT(*executor.median_host_share_ms(), 3000.0);  // a loaded machine, not a wrong unit
  const double before = *executor.median_host_share_ms();
  host.fail = true;
  compare(executor, k, 0.0f);
  EXPECT_EQ(*executor.median_host_share_ms(), before);
}

// A split and the GPU-only plan kept beside it run the same engine configuration at the same
// shape: its execution plan is finalized once, for both (a runtime-compiled engine compiles at
// each Finalize). BackwardFilter's GPU-only plan of two micro-batches also needs the beta = 1
// plan, which the split's one micro-batch does not.
TEST_F(HybridExecutorTest, ThePlansTheSplitSharesWithTheGpuOnlyPlanAreFinalizedOnce) {
  for (const auto op : {Operation::kForward, Operation::kBackwardFilter}) {
    operation = op;
    SCOPED_TRACE(name_of(operation));
    const auto k = kernel(operation);
    const MicroConfiguration half{"cudnn", "eng1", kN / 2, 1, 0};
    const Configuration split{{half}, OffloadedShare{{{"cpu", "DIRECT", kN / 2, 1, 0}}, 0, 0}};
    cudnn::FinalizedPlans kept;
    const std::size_t start = trace_size();
    const HybridExecutor executor(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle, k,
                                  Configuration{{half, half}}, split, host, &kept);
    int finalized = 0;
    for (const auto& line : trace_lines(start))
      finalized += line.rfind("backend-finalize plan", 0) == 0;
    EXPECT_EQ(finalized, op == Operation::kForward ? 1 : 2);
    const auto [error, gpu_samples] = compare(executor, k, 0.0f);
    EXPECT_LT(error, 1e-5);
    EXPECT_EQ(gpu_samples, kN / 2);
  }
}

TEST_F(HybridExecutorTest, ASplitThatDoesNotFitTheKernelIsRefused) {
  const auto k = kernel(Operation::kForward);
  auto construct = [&](const Configuration& split) {
    HybridExecutor executor(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle, k,
                            Configuration{gpu(kN)}, split, host);
  };
  EXPECT_THROW(construct(Configuration{gpu(kN)}), std::invalid_argument);  // no CPU share
  EXPECT_THROW(construct(Configuration{gpu(3), OffloadedShare{{{"cpu", "DIRECT", 2, 1, 0}}}}),
               std::invalid_argument);  // 5 of 6 samples
  EXPECT_THROW(construct(Configuration{gpu(3), OffloadedShare{{{"cpu", "NO_SUCH", 3, 1, 0}}}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace ucudnn::shim
