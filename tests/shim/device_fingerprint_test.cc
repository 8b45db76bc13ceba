// Right device, right key: the shim records a handle's device at cudnnCreate, plans for that
// device whichever is current at the convolution call, stores its measurements under a
// fingerprint that names the device, the driver and the CUDA runtime, and stores nothing when
// any of that cannot be read. Each scenario runs in a child process (this program again) on
// two test-double GPUs, with a database file the parent reads back.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "device_harness.h"
#include "support/random_seed.h"
#include "support/subprocess.h"

namespace {

using namespace ucudnn::testing;

// The child's part: a handle created on GPU 1, a convolution with the virtual algorithm
// called while GPU 0 is current.
TEST(DeviceFingerprint, ChildProcess) {
  if (!std::getenv("FINGERPRINT_CHILD")) GTEST_SKIP() << "run by the scenarios below";
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  cudnnHandle_t handle = nullptr;
  ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  const int n = 8, c = 16, k = 16, size = 12;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnCreateTensorDescriptor(&x);
  cudnnCreateTensorDescriptor(&y);
  cudnnCreateFilterDescriptor(&w);
  cudnnCreateConvolutionDescriptor(&conv);
  cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, size, size);
  cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, size, size);
  cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, 3, 3);
  cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                  CUDNN_DATA_FLOAT);
  DeviceBuffers buffers;
  SeededRandom random;
  void* x_data = buffers.allocate(std::size_t(n) * c * size * size);
  void* w_data = buffers.allocate(std::size_t(k) * c * 9);
  void* y_data = buffers.allocate(std::size_t(n) * k * size * size);
  const std::size_t given = 1 << 20;
  void* workspace = buffers.allocate(given / sizeof(float));
  fill(x_data, std::size_t(n) * c * size * size, random.engine());
  fill(w_data, std::size_t(k) * c * 9, random.engine());

  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const float one = 1, zero = 0;
  EXPECT_EQ(
      cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv,
                              CUDNN_CONVOLUTION_FWD_ALGO_COUNT, workspace, given, &zero, y, y_data),
      CUDNN_STATUS_SUCCESS);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0) << "the application's current device is given back";
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyTensorDescriptor(y);
  cudnnDestroyFilterDescriptor(w);
  cudnnDestroyConvolutionDescriptor(conv);
  cudnnDestroy(handle);
}

struct ChildRun {
  ProcessResult process;
  std::vector<std::string> fingerprints;
  long long measurements = 0, plans = 0;
  std::vector<std::string> trace;
};

std::vector<std::string> column(sqlite3* db, const char* query) {
  std::vector<std::string> values;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, query, -1, &statement, nullptr) != SQLITE_OK) return values;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(statement, 0);
    values.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
  }
  sqlite3_finalize(statement);
  return values;
}

// Runs the child with `environment` added, then reads its database and trace.
ChildRun run_child(std::map<std::string, std::optional<std::string>> environment) {
  char base[] = "/tmp/ucudnn-fingerprint-XXXXXX";
  const int fd = mkstemp(base);
  close(fd);
  const std::string database = std::string(base) + ".db", trace = std::string(base) + ".trace";
  environment["FINGERPRINT_CHILD"] = "1";
  environment["UCUDNN_DATABASE"] = database;
  environment["FAKECUDA_TRACE"] = trace;
  ChildRun run;
  run.process =
      run_process({"/proc/self/exe", "--gtest_filter=DeviceFingerprint.ChildProcess"}, environment);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    run.fingerprints = column(db, "SELECT canonical FROM fingerprints");
    const auto measurements = column(db, "SELECT count(*) FROM measurements");
    const auto plans = column(db, "SELECT count(*) FROM plans");
    run.measurements = measurements.empty() ? 0 : std::stoll(measurements[0]);
    run.plans = plans.empty() ? 0 : std::stoll(plans[0]);
  }
  sqlite3_close(db);
  run.trace = trace_lines(0, kTraceEnd, trace.c_str());
  for (const auto& path : {database, trace, std::string(base)}) std::remove(path.c_str());
  return run;
}

TEST(DeviceFingerprint, AHandleIsPlannedOnItsOwnDeviceUnderItsOwnFingerprint) {
  if (std::getenv("FINGERPRINT_CHILD")) GTEST_SKIP() << "the parent of the scenario";
  const ChildRun run = run_child({});
  ASSERT_EQ(run.process.status, 0) << run.process.out << run.process.err;
  ASSERT_EQ(run.fingerprints.size(), 1u) << run.process.err;
  const std::string& fingerprint = run.fingerprints[0];
  std::printf("stored under: %s\n", fingerprint.c_str());
  EXPECT_NE(fingerprint.find("name=second-gpu"), std::string::npos) << fingerprint;
  EXPECT_NE(fingerprint.find(";driver="), std::string::npos) << fingerprint;
  EXPECT_NE(fingerprint.find(";runtime="), std::string::npos) << fingerprint;
  EXPECT_GT(run.measurements, 0);
  EXPECT_EQ(run.plans, 1);
  int on_device_zero = 0, allocations = 0;
  for (const auto& line : run.trace)
    if (line.rfind("malloc ", 0) == 0) {
      ++allocations;
      if (line.find(" device=0") != std::string::npos) ++on_device_zero;
    }
  EXPECT_GT(allocations, 4) << "the shim's scratch and workspace";
  EXPECT_EQ(on_device_zero, 0) << "benchmark buffers went to the current device, not the handle's";
}

TEST(DeviceFingerprint, NothingIsStoredWhenAFieldCannotBeRead) {
  if (std::getenv("FINGERPRINT_CHILD")) GTEST_SKIP() << "the parent of the scenario";
  for (const char* failing : {"cudaDriverGetVersion", "cudaGetDeviceProperties"}) {
    SCOPED_TRACE(failing);
    const ChildRun run = run_child({{"FAKECUDA_FAIL", failing}, {"UCUDNN_LOG_LEVEL", "info"}});
    EXPECT_EQ(run.process.status, 0) << run.process.out << run.process.err;
    EXPECT_NE(run.process.err.find("kept in this process only"), std::string::npos)
        << run.process.err;
    EXPECT_NE(run.process.err.find("plan within"), std::string::npos) << "the process still plans\n"
                                                                      << run.process.err;
    EXPECT_EQ(run.fingerprints.size(), 0u) << run.fingerprints.front();
    EXPECT_EQ(run.measurements, 0);
    EXPECT_EQ(run.plans, 0);
  }
}

}  // namespace
