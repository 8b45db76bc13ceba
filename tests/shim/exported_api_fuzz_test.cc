// Every function libucudnn_preload.so exports, driven with random valid and invalid
// arguments (null, unset, mismatched and wrongly typed descriptors, null pointers, algorithms
// out of range, odd workspace sizes and counts). Each call is made twice: through the shim and
// straight to the cuDNN test double, and the shim must answer what cuDNN answers: the same
// status for a concrete algorithm (a pass-through), and for the virtual algorithm the status
// cuDNN gives the same arguments with a concrete algorithm whenever that is an error. No call
// may crash (the suite also runs under AddressSanitizer). UCUDNN_FUZZ_CALLS sets the number of
// calls (default 20000).
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "device_harness.h"
#include "support/random_seed.h"

namespace {

using namespace ucudnn::testing;

#define REAL(name) real<decltype(name)>(#name)

// What one call is given; each field drawn from a pool that is mostly right.
struct Arguments {
  cudnnHandle_t handle;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  void *x_data, *w_data, *y_data, *workspace;
  std::size_t bytes;
  const void *alpha, *beta;
  int algorithm, requested;
  int* returned;
  bool results;      // false: a null results array
  std::string text;  // which entries of the pools were drawn, for failure messages
};

class ExportedApiFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    Dl_info info{};
    ASSERT_TRUE(dladdr(reinterpret_cast<const void*>(&cudnnConvolutionForward), &info));
    ASSERT_NE(std::string(info.dli_fname).find("libucudnn_preload.so"), std::string::npos)
        << "run this test with LD_PRELOAD=libucudnn_preload.so (CTest does)";
    ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
    tensors = {
        make_tensor(n, c, 10, 10, CUDNN_DATA_FLOAT), make_tensor(n, k, 10, 10, CUDNN_DATA_FLOAT),
        make_tensor(n, k, 9, 10, CUDNN_DATA_FLOAT), make_tensor(n, c, 10, 10, CUDNN_DATA_HALF),
        make_tensor(n + 1, c, 10, 10, CUDNN_DATA_FLOAT), unset_tensor(), nullptr,
        // What cuDNN 9.19 lets a descriptor hold although no convolution can use it
        // (descriptor_differential_test.cc): reading them back must not trip the shim.
        strided_tensor({n, c, 10, 10}, {300, 100, 10, -1}),
        strided_tensor({1, c, 10, 10}, {0, 100, 10, 1}), strided_tensor({n, c}, {c, 1}),
        strided_tensor({n, c, 10, 10, 10}, {3000, 1000, 100, 10, 1})};
    filters = {make_filter(k, c, CUDNN_DATA_FLOAT), make_filter(k, c + 1, CUDNN_DATA_FLOAT),
               make_filter(k, c, CUDNN_DATA_DOUBLE), unset_filter(), nullptr};
    convolutions = {make_convolution(1, 1),
                    make_convolution(2, 1),
                    make_convolution(1, 0),
                    unset_convolution(),
                    nullptr,
                    convolution_of_length(0),
                    convolution_of_length(3)};
    x_data = buffers.allocate(std::size_t(n + 1) * c * 100);
    w_data = buffers.allocate(std::size_t(k) * (c + 1) * 9);
    y_data = buffers.allocate(std::size_t(n + 1) * k * 100);
    workspace = buffers.allocate(kWorkspace / sizeof(float));
  }
  void TearDown() override {
    for (auto t : tensors)
      if (t) cudnnDestroyTensorDescriptor(t);
    for (auto f : filters)
      if (f) cudnnDestroyFilterDescriptor(f);
    for (auto c : convolutions)
      if (c) cudnnDestroyConvolutionDescriptor(c);
    cudnnDestroy(handle);
  }

  cudnnTensorDescriptor_t make_tensor(int batch, int channels, int h, int w, cudnnDataType_t type) {
    cudnnTensorDescriptor_t d = nullptr;
    cudnnCreateTensorDescriptor(&d);
    cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, type, batch, channels, h, w);
    return d;
  }
  cudnnTensorDescriptor_t strided_tensor(std::vector<int> dims, std::vector<int> strides) {
    cudnnTensorDescriptor_t d = nullptr;
    cudnnCreateTensorDescriptor(&d);
    EXPECT_EQ(cudnnSetTensorNdDescriptor(d, CUDNN_DATA_FLOAT, static_cast<int>(dims.size()),
                                         dims.data(), strides.data()),
              CUDNN_STATUS_SUCCESS);
    return d;
  }
  cudnnConvolutionDescriptor_t convolution_of_length(int length) {
    cudnnConvolutionDescriptor_t d = nullptr;
    cudnnCreateConvolutionDescriptor(&d);
    const int zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    EXPECT_EQ(cudnnSetConvolutionNdDescriptor(d, length, zero, one, one, CUDNN_CROSS_CORRELATION,
                                              CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
    return d;
  }
  cudnnTensorDescriptor_t unset_tensor() {
    cudnnTensorDescriptor_t d = nullptr;
    cudnnCreateTensorDescriptor(&d);
    return d;
  }
  cudnnFilterDescriptor_t make_filter(int out, int in, cudnnDataType_t type) {
    cudnnFilterDescriptor_t d = nullptr;
    cudnnCreateFilterDescriptor(&d);
    cudnnSetFilter4dDescriptor(d, type, CUDNN_TENSOR_NCHW, out, in, 3, 3);
    return d;
  }
  cudnnFilterDescriptor_t unset_filter() {
    cudnnFilterDescriptor_t d = nullptr;
    cudnnCreateFilterDescriptor(&d);
    return d;
  }
  cudnnConvolutionDescriptor_t make_convolution(int stride, int pad) {
    cudnnConvolutionDescriptor_t d = nullptr;
    cudnnCreateConvolutionDescriptor(&d);
    cudnnSetConvolution2dDescriptor(d, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    return d;
  }
  cudnnConvolutionDescriptor_t unset_convolution() {
    cudnnConvolutionDescriptor_t d = nullptr;
    cudnnCreateConvolutionDescriptor(&d);
    return d;
  }

  // The right entry of a pool most of the time, any entry otherwise.
  template <typename T>
  T pick(const std::vector<T>& pool, std::size_t right) {
    return random.chance(0.8) ? pool[right] : pool[random.uniform(0, pool.size() - 1)];
  }
  template <typename T>
  T or_null(T value) {
    return random.chance(0.95) ? value : nullptr;
  }

  // x, y: the tensors in the roles of the operation's input and output tensor.
  Arguments draw(int algorithm_count) {
    Arguments a{};
    a.handle = random.chance(0.97) ? handle : nullptr;
    a.x = pick(tensors, 0);
    a.y = pick(tensors, 1);
    a.w = pick(filters, 0);
    a.conv = pick(convolutions, 0);
    a.x_data = or_null(x_data);
    a.w_data = or_null(w_data);
    a.y_data = or_null(y_data);
    static constexpr std::array<std::size_t, 5> kBytes = {0, 4, 4096, 1 << 20, kWorkspace};
    a.bytes = kBytes[random.uniform(0, kBytes.size() - 1)];
    a.workspace = random.chance(0.95) ? workspace : nullptr;
    a.alpha = or_null(static_cast<const void*>(&one));
    a.beta = or_null(static_cast<const void*>(&zero));
    // The virtual algorithm (*_ALGO_COUNT) often, concrete ones, and values out of range.
    const int draw = random.uniform(0, 9);
    a.algorithm = draw < 4   ? algorithm_count
                  : draw < 9 ? random.uniform(0, algorithm_count - 1)
                             : (random.chance(0.5) ? -1 : algorithm_count + 1);
    static constexpr std::array<int, 6> kRequested = {-1, 0, 1, 2, 8, 100};
    a.requested = kRequested[random.uniform(0, kRequested.size() - 1)];
    a.returned = random.chance(0.95) ? &returned : nullptr;
    a.results = random.chance(0.95);
    auto index = [](const auto& pool, auto value) {
      return std::to_string(std::find(pool.begin(), pool.end(), value) - pool.begin());
    };
    a.text = std::string(a.handle ? "" : " handle=null") + " x=" + index(tensors, a.x) +
             " y=" + index(tensors, a.y) + " w=" + index(filters, a.w) +
             " conv=" + index(convolutions, a.conv) + (a.x_data ? "" : " x_data=null") +
             (a.w_data ? "" : " w_data=null") + (a.y_data ? "" : " y_data=null") +
             (a.workspace ? "" : " workspace=null") + " bytes=" + std::to_string(a.bytes) +
             (a.alpha ? "" : " alpha=null") + (a.beta ? "" : " beta=null") +
             " algorithm=" + std::to_string(a.algorithm) +
             " requested=" + std::to_string(a.requested) + (a.returned ? "" : " returned=null") +
             (a.results ? "" : " results=null");
    return a;
  }

  static constexpr std::size_t kWorkspace = 16 << 20;
  const int n = 4, c = 3, k = 5;
  const float one = 1, zero = 0;
  SeededRandom random;
  cudnnHandle_t handle = nullptr;
  std::vector<cudnnTensorDescriptor_t> tensors;
  std::vector<cudnnFilterDescriptor_t> filters;
  std::vector<cudnnConvolutionDescriptor_t> convolutions;
  void *x_data = nullptr, *w_data = nullptr, *y_data = nullptr, *workspace = nullptr;
  int returned = 0;
  DeviceBuffers buffers;
};

// For the virtual algorithm: cuDNN's answer to the same call with a concrete algorithm (the
// operation's first) and a workspace large enough; an error there must be the shim's too.
struct Verdict {
  std::map<std::string, int> calls, mismatches;
  std::vector<std::string> examples;
  std::string arguments;
  void record(const std::string& function, cudnnStatus_t shim, cudnnStatus_t expected, bool exact) {
    ++calls[function];
    const bool ok = exact ? shim == expected
                          : (expected != CUDNN_STATUS_SUCCESS ? shim == expected
                                                              : shim == CUDNN_STATUS_SUCCESS);
    if (!ok)
      mismatch(function, std::string("shim ") + cudnnGetErrorString(shim) + ", cuDNN " +
                             cudnnGetErrorString(expected) + (exact ? "" : " (virtual algorithm)"));
  }
  void mismatch(const std::string& function, const std::string& what) {
    ++mismatches[function];
    if (examples.size() < 20) examples.push_back(function + ": " + what + ";" + arguments);
  }
};

long long fuzz_calls() {
  const char* text = std::getenv("UCUDNN_FUZZ_CALLS");
  return text ? std::atoll(text) : 20000;
}

TEST_F(ExportedApiFuzz, EveryExportedFunctionAnswersAsCudnnDoes) {
  Verdict verdict;
  const long long total = fuzz_calls();
  std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(128);
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> data(128);
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> filter(128);
  cudnnActivationDescriptor_t relu = nullptr, unset_activation = nullptr;
  cudnnCreateActivationDescriptor(&relu);
  cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0);
  cudnnCreateActivationDescriptor(&unset_activation);
  cudnnTensorDescriptor_t bias = make_tensor(1, k, 1, 1, CUDNN_DATA_FLOAT);
  void* bias_data = buffers.allocate(k);

  for (long long call = 0; call < total; ++call) {
    const int function = random.uniform(0, 20);
    const int op = function % 3;  // Forward, BackwardData, BackwardFilter
    const int count = op == 0   ? int(CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
                      : op == 1 ? int(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)
                                : int(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
    Arguments a = draw(count);
    const bool virtual_algorithm = a.algorithm == count;
    verdict.arguments = " op=" + std::to_string(op) + a.text;
    switch (function / 3) {
      case 0: {  // *MaxCount
        int shim = -7, direct = -7;
        int* shim_out = a.returned ? &shim : nullptr;
        int* direct_out = a.returned ? &direct : nullptr;
        cudnnStatus_t s, d;
        if (op == 0) {
          s = cudnnGetConvolutionForwardAlgorithmMaxCount(a.handle, shim_out);
          d = REAL(cudnnGetConvolutionForwardAlgorithmMaxCount)(a.handle, direct_out);
        } else if (op == 1) {
          s = cudnnGetConvolutionBackwardDataAlgorithmMaxCount(a.handle, shim_out);
          d = REAL(cudnnGetConvolutionBackwardDataAlgorithmMaxCount)(a.handle, direct_out);
        } else {
          s = cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(a.handle, shim_out);
          d = REAL(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount)(a.handle, direct_out);
        }
        verdict.record("MaxCount", s, d, true);
        if (s == CUDNN_STATUS_SUCCESS && d == CUDNN_STATUS_SUCCESS && shim != direct + 1)
          verdict.mismatch("MaxCount", "count " + std::to_string(shim) + " for cuDNN's " +
                                           std::to_string(direct) + " + the virtual algorithm");
        break;
      }
      case 1:    // Get_v7
      case 2: {  // Find
        const bool find = function / 3 == 2;
        const int requested = std::min(a.requested, 128);
        cudnnStatus_t s, d;
        if (op == 0) {
          auto* out = a.results ? fwd.data() : nullptr;
          auto get =
              find ? cudnnFindConvolutionForwardAlgorithm : cudnnGetConvolutionForwardAlgorithm_v7;
          auto direct = find ? REAL(cudnnFindConvolutionForwardAlgorithm)
                             : REAL(cudnnGetConvolutionForwardAlgorithm_v7);
          s = get(a.handle, a.x, a.w, a.conv, a.y, requested, a.returned, out);
          d = direct(a.handle, a.x, a.w, a.conv, a.y, requested, a.returned, out);
        } else if (op == 1) {
          auto* out = a.results ? data.data() : nullptr;
          auto get = find ? cudnnFindConvolutionBackwardDataAlgorithm
                          : cudnnGetConvolutionBackwardDataAlgorithm_v7;
          auto direct = find ? REAL(cudnnFindConvolutionBackwardDataAlgorithm)
                             : REAL(cudnnGetConvolutionBackwardDataAlgorithm_v7);
          s = get(a.handle, a.w, a.y, a.conv, a.x, requested, a.returned, out);
          d = direct(a.handle, a.w, a.y, a.conv, a.x, requested, a.returned, out);
        } else {
          auto* out = a.results ? filter.data() : nullptr;
          auto get = find ? cudnnFindConvolutionBackwardFilterAlgorithm
                          : cudnnGetConvolutionBackwardFilterAlgorithm_v7;
          auto direct = find ? REAL(cudnnFindConvolutionBackwardFilterAlgorithm)
                             : REAL(cudnnGetConvolutionBackwardFilterAlgorithm_v7);
          s = get(a.handle, a.x, a.y, a.conv, a.w, requested, a.returned, out);
          d = direct(a.handle, a.x, a.y, a.conv, a.w, requested, a.returned, out);
        }
        verdict.record(find ? "Find" : "Get_v7", s, d, false);
        break;
      }
      case 3: {  // Find*Ex
        const int requested = std::min(a.requested, 128);
        cudnnStatus_t s, d;
        if (op == 0) {
          auto* out = a.results ? fwd.data() : nullptr;
          s = cudnnFindConvolutionForwardAlgorithmEx(a.handle, a.x, a.x_data, a.w, a.w_data, a.conv,
                                                     a.y, a.y_data, requested, a.returned, out,
                                                     a.workspace, a.bytes);
          d = REAL(cudnnFindConvolutionForwardAlgorithmEx)(a.handle, a.x, a.x_data, a.w, a.w_data,
                                                           a.conv, a.y, a.y_data, requested,
                                                           a.returned, out, a.workspace, a.bytes);
        } else if (op == 1) {
          auto* out = a.results ? data.data() : nullptr;
          s = cudnnFindConvolutionBackwardDataAlgorithmEx(a.handle, a.w, a.w_data, a.y, a.y_data,
                                                          a.conv, a.x, a.x_data, requested,
                                                          a.returned, out, a.workspace, a.bytes);
          d = REAL(cudnnFindConvolutionBackwardDataAlgorithmEx)(
              a.handle, a.w, a.w_data, a.y, a.y_data, a.conv, a.x, a.x_data, requested, a.returned,
              out, a.workspace, a.bytes);
        } else {
          auto* out = a.results ? filter.data() : nullptr;
          s = cudnnFindConvolutionBackwardFilterAlgorithmEx(a.handle, a.x, a.x_data, a.y, a.y_data,
                                                            a.conv, a.w, a.w_data, requested,
                                                            a.returned, out, a.workspace, a.bytes);
          d = REAL(cudnnFindConvolutionBackwardFilterAlgorithmEx)(
              a.handle, a.x, a.x_data, a.y, a.y_data, a.conv, a.w, a.w_data, requested, a.returned,
              out, a.workspace, a.bytes);
        }
        verdict.record("FindEx", s, d, false);
        break;
      }
      case 4: {  // Get*WorkspaceSize
        std::size_t shim_bytes = 0, direct_bytes = 0;
        std::size_t* shim_out = a.returned ? &shim_bytes : nullptr;
        std::size_t* direct_out = a.returned ? &direct_bytes : nullptr;
        const int concrete = virtual_algorithm ? 0 : a.algorithm;
        cudnnStatus_t s, d;
        if (op == 0) {
          s = cudnnGetConvolutionForwardWorkspaceSize(
              a.handle, a.x, a.w, a.conv, a.y, cudnnConvolutionFwdAlgo_t(a.algorithm), shim_out);
          d = REAL(cudnnGetConvolutionForwardWorkspaceSize)(
              a.handle, a.x, a.w, a.conv, a.y, cudnnConvolutionFwdAlgo_t(concrete), direct_out);
        } else if (op == 1) {
          s = cudnnGetConvolutionBackwardDataWorkspaceSize(
              a.handle, a.w, a.y, a.conv, a.x, cudnnConvolutionBwdDataAlgo_t(a.algorithm),
              shim_out);
          d = REAL(cudnnGetConvolutionBackwardDataWorkspaceSize)(
              a.handle, a.w, a.y, a.conv, a.x, cudnnConvolutionBwdDataAlgo_t(concrete), direct_out);
        } else {
          s = cudnnGetConvolutionBackwardFilterWorkspaceSize(
              a.handle, a.x, a.y, a.conv, a.w, cudnnConvolutionBwdFilterAlgo_t(a.algorithm),
              shim_out);
          d = REAL(cudnnGetConvolutionBackwardFilterWorkspaceSize)(
              a.handle, a.x, a.y, a.conv, a.w, cudnnConvolutionBwdFilterAlgo_t(concrete),
              direct_out);
        }
        verdict.record("WorkspaceSize", s, d, !virtual_algorithm);
        if (!virtual_algorithm && s == CUDNN_STATUS_SUCCESS && shim_bytes != direct_bytes)
          verdict.mismatch("WorkspaceSize", std::to_string(shim_bytes) + " bytes for cuDNN's " +
                                                std::to_string(direct_bytes));
        break;
      }
      case 5: {  // the convolutions
        const int concrete = virtual_algorithm ? 0 : a.algorithm;
        // A null workspace stays null: cuDNN's answer to it is the shim's to give.
        void* direct_workspace = a.workspace;
        const std::size_t direct_bytes = virtual_algorithm && a.workspace ? kWorkspace : a.bytes;
        cudnnStatus_t s, d;
        if (op == 0) {
          s = cudnnConvolutionForward(a.handle, a.alpha, a.x, a.x_data, a.w, a.w_data, a.conv,
                                      cudnnConvolutionFwdAlgo_t(a.algorithm), a.workspace, a.bytes,
                                      a.beta, a.y, a.y_data);
          d = REAL(cudnnConvolutionForward)(a.handle, a.alpha, a.x, a.x_data, a.w, a.w_data, a.conv,
                                            cudnnConvolutionFwdAlgo_t(concrete), direct_workspace,
                                            direct_bytes, a.beta, a.y, a.y_data);
        } else if (op == 1) {
          s = cudnnConvolutionBackwardData(a.handle, a.alpha, a.w, a.w_data, a.y, a.y_data, a.conv,
                                           cudnnConvolutionBwdDataAlgo_t(a.algorithm), a.workspace,
                                           a.bytes, a.beta, a.x, a.x_data);
          d = REAL(cudnnConvolutionBackwardData)(a.handle, a.alpha, a.w, a.w_data, a.y, a.y_data,
                                                 a.conv, cudnnConvolutionBwdDataAlgo_t(concrete),
                                                 direct_workspace, direct_bytes, a.beta, a.x,
                                                 a.x_data);
        } else {
          s = cudnnConvolutionBackwardFilter(a.handle, a.alpha, a.x, a.x_data, a.y, a.y_data,
                                             a.conv, cudnnConvolutionBwdFilterAlgo_t(a.algorithm),
                                             a.workspace, a.bytes, a.beta, a.w, a.w_data);
          d = REAL(cudnnConvolutionBackwardFilter)(
              a.handle, a.alpha, a.x, a.x_data, a.y, a.y_data, a.conv,
              cudnnConvolutionBwdFilterAlgo_t(concrete), direct_workspace, direct_bytes, a.beta,
              a.w, a.w_data);
        }
        verdict.record("Convolution", s, d, !virtual_algorithm);
        break;
      }
      case 6: {  // the fused forward convolution, or cudnnCreate/cudnnDestroy with null
        if (op != 0) {
          const bool destroy = random.chance(0.5);
          const cudnnStatus_t s = destroy ? cudnnDestroy(nullptr) : cudnnCreate(nullptr);
          const cudnnStatus_t d =
              destroy ? REAL(cudnnDestroy)(nullptr) : REAL(cudnnCreate)(nullptr);
          verdict.record("Create/Destroy(null)", s, d, true);
          break;
        }
        const auto activation =
            random.chance(0.9) ? relu : (random.chance(0.5) ? unset_activation : nullptr);
        const auto bias_desc =
            pick(std::vector<cudnnTensorDescriptor_t>{bias, tensors[1], nullptr}, 0);
        // cuDNN fuses with IMPLICIT_PRECOMP_GEMM only, which needs a workspace; the shim's plan
        // may need none: the reference is given one.
        const int concrete = virtual_algorithm ? 1 : a.algorithm;
        void* direct_workspace = virtual_algorithm ? workspace : a.workspace;
        const std::size_t direct_bytes = virtual_algorithm ? kWorkspace : a.bytes;
        const cudnnStatus_t s = cudnnConvolutionBiasActivationForward(
            a.handle, a.alpha, a.x, a.x_data, a.w, a.w_data, a.conv,
            cudnnConvolutionFwdAlgo_t(a.algorithm), a.workspace, a.bytes, a.beta, a.y, a.y_data,
            bias_desc, bias_data, activation, a.y, a.y_data);
        const cudnnStatus_t d = REAL(cudnnConvolutionBiasActivationForward)(
            a.handle, a.alpha, a.x, a.x_data, a.w, a.w_data, a.conv,
            cudnnConvolutionFwdAlgo_t(concrete), direct_workspace, direct_bytes, a.beta, a.y,
            a.y_data, bias_desc, bias_data, activation, a.y, a.y_data);
        verdict.record("BiasActivation", s, d, !virtual_algorithm);
        break;
      }
    }
  }
  cudnnDestroyActivationDescriptor(relu);
  cudnnDestroyActivationDescriptor(unset_activation);
  cudnnDestroyTensorDescriptor(bias);

  long long calls = 0;
  for (const auto& [function, number] : verdict.calls) {
    calls += number;
    std::printf("%-22s %8d calls, %d answered unlike cuDNN\n", function.c_str(), number,
                verdict.mismatches.count(function) ? verdict.mismatches.at(function) : 0);
  }
  std::printf("%lld calls through the shim, each compared with the double's own answer\n", calls);
  EXPECT_EQ(calls, total);
  for (const auto& example : verdict.examples) ADD_FAILURE() << example;
}

}  // namespace
