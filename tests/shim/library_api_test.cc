// libucudnn's API beside the convolution overloads (linked, no preload), on the doubles:
// ucudnnSetDatabase refuses a path it cannot use, keeps the database in use and says so, and
// leaves a text file named by a slip (a script, a network file) exactly as it is; optimize()
// without a total says there is nothing to divide.
#include <gtest/gtest.h>
#include <ucudnn/ucudnn.h>

#include <filesystem>
#include <string>

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

}  // namespace
}  // namespace ucudnn::testing
