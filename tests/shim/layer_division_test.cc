// The paper's per-layer WD through ucudnn's link-time API (issue 36): where the application
// gives UcudnnHandle_t's overloads layer ids, it keeps one buffer per layer (as Caffe does), so
// each layer's kernel owns a segment of the arena, the ILP dividing the total among them; the
// same calls without layer ids, on one stream, share one segment. Run on the doubles with
// libucudnn linked (no preload) and the info log read back.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <ucudnn/ucudnn.h>

#include <string>
#include <vector>

#include "device_harness.h"
#include "layer_tensors.h"
#include "support/printed_text.h"
#include "support/random_seed.h"

namespace ucudnn::testing {
namespace {

#define CHECK_OK(call) ASSERT_EQ((call), CUDNN_STATUS_SUCCESS) << #call

constexpr int kBatch = 8, kSize = 16;

// One layer: channels in and out and a square filter, padded to keep the size.
struct Shape {
  int c, k, filter;
};

class Layer : LayerTensors {
 public:
  Layer(const Shape& s, DeviceBuffers& buffers, std::mt19937_64& random)
      : LayerTensors(kBatch, s.c, s.k, s.filter, s.filter / 2, kSize, buffers, random) {}

  // Forward, BackwardData, BackwardFilter with ucudnn's virtual algorithms, selected on first
  // use; `id` is the layer id given to every call (-1: none).
  void train_step(UcudnnHandle_t handle, std::int64_t id) {
    const float one = 1, zero = 0;
    int returned = 0;
    if (!selected_) {
      cudnnConvolutionFwdAlgoPerf_t f{};
      cudnnConvolutionBwdDataAlgoPerf_t d{};
      cudnnConvolutionBwdFilterAlgoPerf_t g{};
      CHECK_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 1, &returned, &f, id));
      CHECK_OK(
          cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w, y, conv, x, 1, &returned, &d, id));
      CHECK_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x, y, conv, w, 1, &returned,
                                                             &g, id));
      ASSERT_EQ(f.memory + d.memory + g.memory, 0u) << "under WD the arena is ucudnn's";
      forward_ = f.algo, backward_data_ = d.algo, backward_filter_ = g.algo;
      selected_ = true;
    }
    CHECK_OK(cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv, forward_, nullptr, 0,
                                     &zero, y, y_data, id));
    CHECK_OK(cudnnConvolutionBackwardData(handle, &one, w, w_data, y, dy, conv, backward_data_,
                                          nullptr, 0, &zero, x, dx, id));
    CHECK_OK(cudnnConvolutionBackwardFilter(handle, &one, x, x_data, y, dy, conv, backward_filter_,
                                            nullptr, 0, &zero, w, dw, id));
  }

 private:
  bool selected_ = false;
  cudnnConvolutionFwdAlgo_t forward_{};
  cudnnConvolutionBwdDataAlgo_t backward_data_{};
  cudnnConvolutionBwdFilterAlgo_t backward_filter_{};
};

// Three layers, two of one shape, trained three iterations on one handle and stream; the log.
std::string train(bool layer_ids, std::mt19937_64& random) {
  DeviceBuffers buffers;
  const Shape shapes[] = {{3, 16, 5}, {16, 16, 3}, {16, 16, 3}};
  std::vector<std::unique_ptr<Layer>> layers;
  for (const auto& s : shapes) layers.push_back(std::make_unique<Layer>(s, buffers, random));
  UcudnnHandle_t handle;
  EXPECT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(handle.setTotalWorkspaceSize(1 << 20), CUDNN_STATUS_SUCCESS);
  ::testing::internal::CaptureStderr();
  for (int iteration = 0; iteration < 3; ++iteration)
    for (std::size_t l = 0; l < layers.size(); ++l)
      layers[l]->train_step(handle, layer_ids ? static_cast<std::int64_t>(l) : -1);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(cudnnDestroy(handle), CUDNN_STATUS_SUCCESS);
  return log;
}

TEST(LayerDivision, LayerIdsOwnSegmentsWithoutThemOneStreamShares) {
  ASSERT_STREQ(std::getenv("UCUDNN_LOG_LEVEL"), "info") << "CTest sets the log level";
  SeededRandom random;
  const std::string per_layer = train(true, random.engine());
  std::printf("%s", per_layer.c_str());
  // Nine kernels: three layers (two of one shape, told apart by their ids) times three
  // operations, each in a buffer of its own.
  EXPECT_EQ(count_of(per_layer, "workspace division of 9 kernels in 9 segments:"), 1) << per_layer;
  EXPECT_EQ(count_of(per_layer, "; it owns segment "), 9) << per_layer;
  EXPECT_EQ(count_of(per_layer, "which the application keeps for it"), 9) << per_layer;
  EXPECT_EQ(count_of(per_layer, "in layer 2's BackwardFilter buffer"), 1) << per_layer;

  const std::string shared = train(false, random.engine());
  std::printf("%s", shared.c_str());
  // Six kernels (the repeated shape is one kernel, run twice) on one stream: one segment.
  EXPECT_EQ(count_of(shared, "workspace division of 6 kernels in 1 segment:"), 1) << shared;
  EXPECT_EQ(count_of(shared, "in stream order with 5 other kernels"), 6) << shared;
  EXPECT_EQ(count_of(shared, "nothing can overlap them"), 6) << shared;
}

}  // namespace
}  // namespace ucudnn::testing
