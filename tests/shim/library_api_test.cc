// libucudnn's API beside the convolution overloads (linked, no preload), on the doubles:
// ucudnnSetDatabase refuses a path it cannot use, keeps the database in use and says so, and
// leaves a text file named by a slip (a script, a network file) exactly as it is; optimize()
// without a total says there is nothing to divide.
#include <gtest/gtest.h>
#include <ucudnn/ucudnn.h>

#include <cuda_runtime_api.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/file_text.h"
#include "support/printed_text.h"
#include "support/temp_folder.h"

namespace ucudnn::testing {
namespace {

TEST(SetDatabase, ATextFileIsRefusedUntouchedAndTheDatabaseInUseStays) {
  TempFolder folder;
  const std::string good = folder.file("good.db"), script = folder.file("train.py");
  ASSERT_EQ(ucudnnSetDatabase(good.c_str()), CUDNN_STATUS_SUCCESS);
  const std::string text = "import torch\n\nprint('training')\n";
  write_file(script, text);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(ucudnnSetDatabase(script.c_str()), CUDNN_STATUS_BAD_PARAM);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(read_file(script), text);
  EXPECT_EQ(folder.names_starting_with("train.py."), std::vector<std::string>{});
  EXPECT_EQ(count_of(err, "ucudnnSetDatabase: "), 1) << err;
  EXPECT_NE(err.find(script + " is a text file, not a SQLite database"), std::string::npos) << err;
  EXPECT_NE(err.find("the benchmark database in use stays"), std::string::npos) << err;
  EXPECT_EQ(err.find("without a benchmark cache"), std::string::npos) << err;
}

// It returned SUCCESS and did nothing, without a word.
TEST(HandleOptions, OptimizeWithoutATotalSaysThereIsNothingToDivide) {
  UcudnnHandle_t handle;
  ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(handle.optimize(), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(handle.optimize(), CUDNN_STATUS_SUCCESS);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(err, "optimize(): the handle has no total workspace"), 1) << err;
  EXPECT_EQ(cudnnDestroy(handle), CUDNN_STATUS_SUCCESS);
}

// It made a file ":memory:.lock" in the working folder, then at exit said the results "are not
// in the file now at that path" and "could not be saved".
TEST(SetDatabase, MemoryIsAsUcudnnDatabaseSaysNoFile) {
  TempFolder folder;
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(folder.path());
  ::testing::internal::CaptureStderr();
  const cudnnStatus_t status = ucudnnSetDatabase(":memory:");
  const std::string err = ::testing::internal::GetCapturedStderr();
  std::filesystem::current_path(before);
  EXPECT_EQ(status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(err, "");
  EXPECT_EQ(folder.names_starting_with(""), std::vector<std::string>{});
}

// A small convolution in device buffers of the doubles: 8 images, 4 -> 6 channels, 10x10, 3x3.
struct SmallConvolution {
  cudnnTensorDescriptor_t x{}, y{};
  cudnnFilterDescriptor_t w{};
  cudnnConvolutionDescriptor_t conv{};
  void *x_data = nullptr, *w_data = nullptr, *y_data = nullptr, *workspace = nullptr;
  SmallConvolution() {
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 8, 4, 10, 10);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 6, 4, 3, 3);
    cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 8, 6, 10, 10);
    cudaMalloc(&x_data, 8 * 4 * 100 * sizeof(float));
    cudaMalloc(&w_data, 6 * 4 * 9 * sizeof(float));
    cudaMalloc(&y_data, 8 * 6 * 100 * sizeof(float));
    cudaMalloc(&workspace, 1 << 20);
  }
  ~SmallConvolution() {
    for (void* p : {x_data, w_data, y_data, workspace}) cudaFree(p);
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
};

// Find*Ex answers, as cuDNN's does, only what runs in the workspace it was given, and
// measures in it: under a larger limit of the handle's, ucudnn's plan needed more (67392 bytes
// of a 32 KiB workspace, in a trial) and measuring allocated.
TEST(HandleOptions, FindExPlansWithinTheWorkspaceGivenUnderALargerLimit) {
  ASSERT_EQ(ucudnnSetDatabase(":memory:"), CUDNN_STATUS_SUCCESS);
  UcudnnHandle_t handle;
  ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(handle.setWorkspaceLimit(std::size_t{1} << 20), CUDNN_STATUS_SUCCESS);
  SmallConvolution c;
  for (const std::size_t given : {std::size_t{0}, std::size_t{1} << 10, std::size_t{32} << 10}) {
    SCOPED_TRACE("workspace given: " + std::to_string(given));
    UcudnnRuntimeCallCounts measuring_before{}, other{}, measuring_after{};
    ASSERT_EQ(ucudnnGetRuntimeCallCounts(&measuring_before, &other), CUDNN_STATUS_SUCCESS);
    int max = 0, returned = 0;
    ASSERT_EQ(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max), CUDNN_STATUS_SUCCESS);
    std::vector<cudnnConvolutionFwdAlgoPerf_t> results(static_cast<std::size_t>(max));
    ASSERT_EQ(cudnnFindConvolutionForwardAlgorithmEx(handle, c.x, c.x_data, c.w, c.w_data, c.conv,
                                                     c.y, c.y_data, max, &returned, results.data(),
                                                     c.workspace, given),
              CUDNN_STATUS_SUCCESS);
    ASSERT_GE(returned, 1);
    EXPECT_EQ(results[0].algo, CUDNN_CONVOLUTION_FWD_ALGO_COUNT) << "ucudnn's plan first";
    for (int i = 0; i < returned; ++i) {
      if (results[static_cast<std::size_t>(i)].status == CUDNN_STATUS_SUCCESS) {
        EXPECT_LE(results[static_cast<std::size_t>(i)].memory, given) << "result " << i;
      }
    }
    ASSERT_EQ(ucudnnGetRuntimeCallCounts(&measuring_after, &other), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(measuring_after.allocations, measuring_before.allocations);
  }
  EXPECT_EQ(cudnnDestroy(handle), CUDNN_STATUS_SUCCESS);
}

}  // namespace
}  // namespace ucudnn::testing
