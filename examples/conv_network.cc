// conv_network: five convolution layers trained the way a framework drives cuDNN's legacy
// API. It picks an algorithm per layer and operation (Get*_v7, Find* or Find*Ex), asks
// for that algorithm's workspace and allocates exactly that (as PyTorch does), then runs
// Forward, BackwardData and BackwardFilter per layer and iteration on one stream, timing
// each iteration with CUDA events. It knows nothing of ucudnn: built against cuDNN's
// headers and linked with -lcudnn -lcudart, it runs on the real libraries, on the test
// doubles (LD_LIBRARY_PATH), or under the ucudnn shim (LD_PRELOAD).
//
// Built with -DUCUDNN_HANDLE (conv_network_ucudnn) it uses ucudnn's link-time API instead: the
// handles become UcudnnHandle_t, and --workspace-limit is also set on them (setWorkspaceLimit);
// that is the whole difference.
//
// --data-type half|bf16 stores every tensor in 16 bits, computed in float, --channels-last makes
// every layer NHWC, and --math-type sets the convolutions' math type (PyTorch sets tensor-op for
// 16-bit data).
//
// Usage: conv_network [--batch N] [--seed S] [--iterations I] [--select v7|find|findex]
//                     [--workspace-limit SIZE] [--dump FILE] [--threads T]
//                     [--data-type float|half|bf16] [--channels-last]
//                     [--math-type default|tensor-op|allow-conversion]
// Exit status: 0 success; 1 a CUDA or cuDNN call failed; 2 bad arguments; 3 the threads'
// outputs differ (each thread runs the same workload on its own handle and stream).
#include <cuda_runtime_api.h>
#include <cudnn.h>

#ifdef UCUDNN_HANDLE
#include <ucudnn/ucudnn.h>
using Handle = UcudnnHandle_t;
#else
using Handle = cudnnHandle_t;
#endif

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "checked_calls.h"
#include "conv_network_options.h"
#include "device_tensor.h"
#include "network_layers.h"
#include "tensor_dump.h"

namespace {

using ucudnn::examples::conv_network_cli::Options;
using ucudnn::examples::conv_network_cli::Select;

// How each layer's descriptors are made: the network uses every way a framework might.
enum class TensorCall { k4d, k4dEx, kNdStrided };

struct DescriptorCalls {
  TensorCall tensor;
  bool filter_nd, convolution_nd;
};

// Indexed like examples::kLayers (network_layers.h, shared with the tests).
constexpr DescriptorCalls kDescriptorCalls[] = {
    {TensorCall::k4d, false, false},        {TensorCall::k4dEx, true, false},
    {TensorCall::kNdStrided, false, false}, {TensorCall::kNdStrided, false, false},
    {TensorCall::k4d, false, true},
};
static_assert(std::size(kDescriptorCalls) == std::size(ucudnn::examples::kLayers));

void set_tensor(cudnnTensorDescriptor_t desc, cudnnDataType_t type, bool nhwc, TensorCall call,
                int n, int c, int h, int w) {
  // Channels-last strides: C innermost, then W, H, N.
  const int strides_nchw[] = {c * h * w, h * w, w, 1}, strides_nhwc[] = {h * w * c, 1, w * c, c};
  const int* strides = nhwc ? strides_nhwc : strides_nchw;
  switch (call) {
    case TensorCall::k4d:
      CHECK_CUDNN(cudnnSetTensor4dDescriptor(desc, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                             type, n, c, h, w));
      break;
    case TensorCall::k4dEx:
      CHECK_CUDNN(cudnnSetTensor4dDescriptorEx(desc, type, n, c, h, w, strides[0], strides[1],
                                               strides[2], strides[3]));
      break;
    case TensorCall::kNdStrided: {
      const int dims[] = {n, c, h, w};
      CHECK_CUDNN(cudnnSetTensorNdDescriptor(desc, type, 4, dims, strides));
      break;
    }
  }
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) CHECK_CUDA(cudaMalloc(&p, bytes));
  return p;
}

struct Choice {
  int algo = -1;
  std::size_t memory = 0;     // what the query reported
  std::size_t workspace = 0;  // what Get*WorkspaceSize says the algorithm needs
  void* buffer = nullptr;     // exactly that many bytes, or null
};

// The first algorithm that ran and fits the limit, as frameworks pick.
template <typename Perf>
Choice first_fitting(const std::vector<Perf>& perf, int returned, std::size_t limit,
                     const char* layer, const char* operation) {
  for (int i = 0; i < returned; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= limit)
      return {static_cast<int>(perf[i].algo), perf[i].memory, 0, nullptr};
  std::fflush(stdout);
  std::fprintf(stderr, "conv_network: no %s algorithm of %s fits %zu bytes\n", operation, layer,
               limit);
  std::_Exit(1);
}

// One thread's copy of a layer: descriptors, device buffers, chosen algorithms.
struct Layer {
  const ucudnn::examples::Layer& spec;
  const DescriptorCalls calls;
  int n, p, q;  // batch and output size
  cudnnTensorDescriptor_t x_desc = nullptr, y_desc = nullptr;
  cudnnFilterDescriptor_t w_desc = nullptr;
  cudnnConvolutionDescriptor_t conv_desc = nullptr;
  const cudnnDataType_t type;
  const bool nhwc;
  ucudnn::examples::Buffer x, w, y, dx, dw, dy;
  Choice forward, backward_data, backward_filter;

  Layer(const ucudnn::examples::Layer& layer_spec, DescriptorCalls descriptor_calls,
        const Options& options)
      : spec(layer_spec),
        calls(descriptor_calls),
        n(options.batch),
        type(options.data_type),
        nhwc(spec.channels_last || options.channels_last) {
    const cudnnConvolutionMode_t mode =
        spec.convolution_mode ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&x_desc));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&y_desc));
    CHECK_CUDNN(cudnnCreateFilterDescriptor(&w_desc));
    CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&conv_desc));
    set_tensor(x_desc, type, nhwc, calls.tensor, n, spec.in_channels, spec.height, spec.width);
    const cudnnTensorFormat_t filter_format = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    const int cg = spec.in_channels / spec.groups;
    if (calls.filter_nd) {
      const int dims[] = {spec.out_channels, cg, spec.filter_h, spec.filter_w};
      CHECK_CUDNN(cudnnSetFilterNdDescriptor(w_desc, type, filter_format, 4, dims));
    } else {
      CHECK_CUDNN(cudnnSetFilter4dDescriptor(w_desc, type, filter_format, spec.out_channels, cg,
                                             spec.filter_h, spec.filter_w));
    }
    if (calls.convolution_nd) {
      const int pad[] = {spec.pad, spec.pad}, stride[] = {spec.stride, spec.stride},
                dilation[] = {spec.dilation, spec.dilation};
      CHECK_CUDNN(cudnnSetConvolutionNdDescriptor(conv_desc, 2, pad, stride, dilation, mode,
                                                  CUDNN_DATA_FLOAT));
    } else {
      CHECK_CUDNN(cudnnSetConvolution2dDescriptor(conv_desc, spec.pad, spec.pad, spec.stride,
                                                  spec.stride, spec.dilation, spec.dilation, mode,
                                                  CUDNN_DATA_FLOAT));
    }
    if (spec.groups > 1) CHECK_CUDNN(cudnnSetConvolutionGroupCount(conv_desc, spec.groups));
    if (options.math_type != CUDNN_DEFAULT_MATH)
      CHECK_CUDNN(cudnnSetConvolutionMathType(conv_desc, options.math_type));
    int out_n, out_c;
    CHECK_CUDNN(
        cudnnGetConvolution2dForwardOutputDim(conv_desc, x_desc, w_desc, &out_n, &out_c, &p, &q));
    set_tensor(y_desc, type, nhwc, calls.tensor, n, spec.out_channels, p, q);

    const auto x_count = static_cast<std::size_t>(n) * spec.in_channels * spec.height * spec.width;
    const auto w_count =
        static_cast<std::size_t>(spec.out_channels) * cg * spec.filter_h * spec.filter_w;
    const auto y_count = static_cast<std::size_t>(n) * spec.out_channels * p * q;
    using ucudnn::examples::allocate;
    x = allocate(x_count, type), dx = allocate(x_count, type);
    w = allocate(w_count, type), dw = allocate(w_count, type);
    y = allocate(y_count, type), dy = allocate(y_count, type);
  }
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  ~Layer() {
    for (void* p : {x.data, dx.data, w.data, dw.data, y.data, dy.data, forward.buffer,
                    backward_data.buffer, backward_filter.buffer})
      CHECK_CUDA(cudaFree(p));
    CHECK_CUDNN(cudnnDestroyTensorDescriptor(x_desc));
    CHECK_CUDNN(cudnnDestroyTensorDescriptor(y_desc));
    CHECK_CUDNN(cudnnDestroyFilterDescriptor(w_desc));
    CHECK_CUDNN(cudnnDestroyConvolutionDescriptor(conv_desc));
  }

  // Inputs from the generator: x, w, dy, and y where Forward reads it (beta != 0).
  void upload_random(std::mt19937& engine) {
    for (const auto* b : {&x, &w, &dy}) ucudnn::examples::upload_random(*b, engine);
    if (spec.forward_beta != 0) ucudnn::examples::upload_random(y, engine);
  }

  void select(Handle handle, const Options& options, void* find_workspace) {
    const std::size_t limit = options.workspace_limit;
    {
      int max = 0, returned = 0;
      CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max));
      std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(max);
      switch (options.select) {
        case Select::kV7:
          CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handle, x_desc, w_desc, conv_desc,
                                                             y_desc, max, &returned, perf.data()));
          break;
        case Select::kFind:
          CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithm(handle, x_desc, w_desc, conv_desc,
                                                           y_desc, max, &returned, perf.data()));
          break;
        case Select::kFindEx:
          CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(
              handle, x_desc, x.data, w_desc, w.data, conv_desc, y_desc, y.data, max, &returned,
              perf.data(), find_workspace, limit));
          break;
      }
      forward = first_fitting(perf, returned, limit, spec.name, "Forward");
      CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(
          handle, x_desc, w_desc, conv_desc, y_desc,
          static_cast<cudnnConvolutionFwdAlgo_t>(forward.algo), &forward.workspace));
    }
    {
      int max = 0, returned = 0;
      CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &max));
      std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(max);
      switch (options.select) {
        case Select::kV7:
          CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(
              handle, w_desc, y_desc, conv_desc, x_desc, max, &returned, perf.data()));
          break;
        case Select::kFind:
          CHECK_CUDNN(cudnnFindConvolutionBackwardDataAlgorithm(
              handle, w_desc, y_desc, conv_desc, x_desc, max, &returned, perf.data()));
          break;
        case Select::kFindEx:
          CHECK_CUDNN(cudnnFindConvolutionBackwardDataAlgorithmEx(
              handle, w_desc, w.data, y_desc, dy.data, conv_desc, x_desc, dx.data, max, &returned,
              perf.data(), find_workspace, limit));
          break;
      }
      backward_data = first_fitting(perf, returned, limit, spec.name, "BackwardData");
      CHECK_CUDNN(cudnnGetConvolutionBackwardDataWorkspaceSize(
          handle, w_desc, y_desc, conv_desc, x_desc,
          static_cast<cudnnConvolutionBwdDataAlgo_t>(backward_data.algo),
          &backward_data.workspace));
    }
    {
      int max = 0, returned = 0;
      CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &max));
      std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(max);
      switch (options.select) {
        case Select::kV7:
          CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
              handle, x_desc, y_desc, conv_desc, w_desc, max, &returned, perf.data()));
          break;
        case Select::kFind:
          CHECK_CUDNN(cudnnFindConvolutionBackwardFilterAlgorithm(
              handle, x_desc, y_desc, conv_desc, w_desc, max, &returned, perf.data()));
          break;
        case Select::kFindEx:
          CHECK_CUDNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(
              handle, x_desc, x.data, y_desc, dy.data, conv_desc, w_desc, dw.data, max, &returned,
              perf.data(), find_workspace, limit));
          break;
      }
      backward_filter = first_fitting(perf, returned, limit, spec.name, "BackwardFilter");
      CHECK_CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(
          handle, x_desc, y_desc, conv_desc, w_desc,
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(backward_filter.algo),
          &backward_filter.workspace));
    }
    for (Choice* choice : {&forward, &backward_data, &backward_filter})
      choice->buffer = device_alloc(choice->workspace);
  }

  void print_choices() const {
    const std::pair<const char*, const Choice*> choices[] = {{"Forward", &forward},
                                                             {"BackwardData", &backward_data},
                                                             {"BackwardFilter", &backward_filter}};
    for (const auto& [operation, choice] : choices)
      std::printf("select %s %s algo=%d memory=%zu workspace=%zu\n", spec.name, operation,
                  choice->algo, choice->memory, choice->workspace);
  }

  void train_step(Handle handle, bool first_iteration) {
    const float one = 1, zero = 0;
    const float filter_beta = first_iteration ? 0.0f : 1.0f;  // gradient accumulation
    CHECK_CUDNN(cudnnConvolutionForward(
        handle, &spec.forward_alpha, x_desc, x.data, w_desc, w.data, conv_desc,
        static_cast<cudnnConvolutionFwdAlgo_t>(forward.algo), forward.buffer, forward.workspace,
        &spec.forward_beta, y_desc, y.data));
    CHECK_CUDNN(cudnnConvolutionBackwardData(
        handle, &one, w_desc, w.data, y_desc, dy.data, conv_desc,
        static_cast<cudnnConvolutionBwdDataAlgo_t>(backward_data.algo), backward_data.buffer,
        backward_data.workspace, &zero, x_desc, dx.data));
    CHECK_CUDNN(cudnnConvolutionBackwardFilter(
        handle, &one, x_desc, x.data, y_desc, dy.data, conv_desc,
        static_cast<cudnnConvolutionBwdFilterAlgo_t>(backward_filter.algo), backward_filter.buffer,
        backward_filter.workspace, &filter_beta, w_desc, dw.data));
  }

  void download(std::vector<ucudnn::examples::DumpedTensor>* out) const {
    const std::pair<const char*, const ucudnn::examples::Buffer*> tensors[] = {
        {"y", &y}, {"dx", &dx}, {"dw", &dw}};
    for (const auto& [suffix, buffer] : tensors)
      out->push_back({std::string(spec.name) + "." + suffix, ucudnn::examples::host_copy(*buffer)});
  }
};

// The whole workload on its own handle and stream. Thread 0 reports what it does.
void run_workload(const Options& options, bool report,
                  std::vector<ucudnn::examples::DumpedTensor>* out) {
  Handle handle{};
  CHECK_CUDNN(cudnnCreate(&handle));
#ifdef UCUDNN_HANDLE
  // The program's own limit is ucudnn's too (over UCUDNN_WORKSPACE_LIMIT): its plans then fit
  // what the program allocates, rather than being refused by it.
  if (options.workspace_limit_given) CHECK_CUDNN(handle.setWorkspaceLimit(options.workspace_limit));
#endif
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDNN(cudnnSetStream(handle, stream));

  std::vector<std::unique_ptr<Layer>> layers;
  for (std::size_t i = 0; i < std::size(ucudnn::examples::kLayers); ++i)
    layers.push_back(
        std::make_unique<Layer>(ucudnn::examples::kLayers[i], kDescriptorCalls[i], options));
  // Selection comes before the data: Find*Ex may overwrite the outputs it is given.
  void* find_workspace =
      options.select == Select::kFindEx ? device_alloc(options.workspace_limit) : nullptr;
  for (auto& layer : layers) {
    layer->select(handle, options, find_workspace);
    if (report) layer->print_choices();
  }
  CHECK_CUDA(cudaFree(find_workspace));
  std::mt19937 engine(options.seed);
  for (auto& layer : layers) layer->upload_random(engine);

  std::vector<cudaEvent_t> events(2 * options.iterations);
  for (cudaEvent_t& event : events) CHECK_CUDA(cudaEventCreate(&event));
  for (int i = 0; i < options.iterations; ++i) {
    CHECK_CUDA(cudaEventRecord(events[2 * i], stream));
    for (auto& layer : layers) layer->train_step(handle, i == 0);
    CHECK_CUDA(cudaEventRecord(events[2 * i + 1], stream));
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  for (int i = 0; i < options.iterations; ++i) {
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]));
    if (report) std::printf("iteration %d: %.6f ms\n", i, ms);
  }
  for (cudaEvent_t event : events) CHECK_CUDA(cudaEventDestroy(event));

  for (auto& layer : layers) layer->download(out);
  layers.clear();
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDNN(cudnnDestroy(handle));
}

bool bitwise_equal(const std::vector<ucudnn::examples::DumpedTensor>& a,
                   const std::vector<ucudnn::examples::DumpedTensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].values.size() != b[i].values.size() ||
        std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(float)))
      return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ucudnn::examples::conv_network_cli::parse_options(argc, argv);
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n", prop.name);
  std::printf("cudnn: %zu\n", cudnnGetVersion());
  std::fflush(stdout);

  std::vector<std::vector<ucudnn::examples::DumpedTensor>> outputs(options.threads);
  std::vector<std::thread> threads;
  for (int t = 1; t < options.threads; ++t)
    threads.emplace_back(run_workload, std::cref(options), false, &outputs[t]);
  run_workload(options, true, &outputs[0]);
  for (std::thread& thread : threads) thread.join();

  if (!options.dump.empty()) {
    try {
      ucudnn::examples::write_tensor_dump(options.dump, outputs[0]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "conv_network: %s\n", e.what());
      return 1;
    }
  }
  int status = 0;
  for (int t = 1; t < options.threads; ++t)
    if (!bitwise_equal(outputs[t], outputs[0])) {
      std::fprintf(stderr, "conv_network: thread %d's outputs differ from thread 0's\n", t);
      status = 3;
    }
  return status;
}
