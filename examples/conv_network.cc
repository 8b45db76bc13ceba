// conv_network: five convolution layers trained the way a framework drives cuDNN's legacy
// API. It picks an algorithm per layer and operation (Get*_v7, Find* or Find*Ex), asks
// for that algorithm's workspace and allocates exactly that (as PyTorch does), then runs
// Forward, BackwardData and BackwardFilter per layer and iteration on one stream, timing
// each iteration with CUDA events. It knows nothing of ucudnn: built against cuDNN's
// headers and linked with -lcudnn -lcudart, it runs on the real libraries, on the test
// doubles (LD_LIBRARY_PATH), or under the ucudnn shim (LD_PRELOAD).
//
// Built with -DUCUDNN_HANDLE it uses ucudnn's link-time API instead: the handles become
// UcudnnHandle_t, and that is the whole difference.
//
// Usage: conv_network [--batch N] [--seed S] [--iterations I] [--select v7|find|findex]
//                     [--workspace-limit BYTES] [--dump FILE] [--threads T]
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
#include "network_layers.h"
#include "tensor_dump.h"

namespace {

enum class Select { kV7, kFind, kFindEx };

struct Options {
  int batch = 16;
  unsigned seed = 1;
  int iterations = 3;
  Select select = Select::kV7;
  std::size_t workspace_limit = std::size_t{64} << 20;
  std::string dump;
  int threads = 1;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "conv_network: %s\n"
               "usage: conv_network [--batch N] [--seed S] [--iterations I] "
               "[--select v7|find|findex]\n"
               "                    [--workspace-limit BYTES|<n>KiB|<n>MiB|<n>GiB] "
               "[--dump FILE] [--threads T]\n",
               problem.c_str());
  std::exit(2);
}

long long parse_integer(const std::string& option, const std::string& text, long long low) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < low)
    usage(option + ": invalid value '" + text + "'");
  return value;
}

std::size_t parse_bytes(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string suffix = text.substr(digits);
  const int shift = suffix.empty()    ? 0
                    : suffix == "KiB" ? 10
                    : suffix == "MiB" ? 20
                    : suffix == "GiB" ? 30
                                      : -1;
  if (digits == 0 || shift < 0) usage("--workspace-limit: invalid byte size '" + text + "'");
  const auto value =
      static_cast<std::size_t>(parse_integer("--workspace-limit", text.substr(0, digits), 0));
  if (value > (SIZE_MAX >> shift)) usage("--workspace-limit: '" + text + "' is too large");
  return value << shift;
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string option = argv[i], value;
    if (const auto equals = option.find('='); equals != std::string::npos) {
      value = option.substr(equals + 1);
      option.resize(equals);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      usage(option + " needs a value");
    }
    if (option == "--batch")
      options.batch = static_cast<int>(parse_integer(option, value, 1));
    else if (option == "--seed")
      options.seed = static_cast<unsigned>(parse_integer(option, value, 0));
    else if (option == "--iterations")
      options.iterations = static_cast<int>(parse_integer(option, value, 1));
    else if (option == "--threads")
      options.threads = static_cast<int>(parse_integer(option, value, 1));
    else if (option == "--workspace-limit")
      options.workspace_limit = parse_bytes(value);
    else if (option == "--dump")
      options.dump = value;
    else if (option == "--select" && value == "v7")
      options.select = Select::kV7;
    else if (option == "--select" && value == "find")
      options.select = Select::kFind;
    else if (option == "--select" && value == "findex")
      options.select = Select::kFindEx;
    else if (option == "--select")
      usage("--select: '" + value + "' is not v7, find or findex");
    else
      usage("unknown option " + option);
  }
  return options;
}

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

void set_tensor(cudnnTensorDescriptor_t desc, bool nhwc, TensorCall call, int n, int c, int h,
                int w) {
  // Channels-last strides: C innermost, then W, H, N.
  const int strides_nchw[] = {c * h * w, h * w, w, 1}, strides_nhwc[] = {h * w * c, 1, w * c, c};
  const int* strides = nhwc ? strides_nhwc : strides_nchw;
  switch (call) {
    case TensorCall::k4d:
      CHECK_CUDNN(cudnnSetTensor4dDescriptor(desc, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                             CUDNN_DATA_FLOAT, n, c, h, w));
      break;
    case TensorCall::k4dEx:
      CHECK_CUDNN(cudnnSetTensor4dDescriptorEx(desc, CUDNN_DATA_FLOAT, n, c, h, w, strides[0],
                                               strides[1], strides[2], strides[3]));
      break;
    case TensorCall::kNdStrided: {
      const int dims[] = {n, c, h, w};
      CHECK_CUDNN(cudnnSetTensorNdDescriptor(desc, CUDNN_DATA_FLOAT, 4, dims, strides));
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
  std::size_t x_count, w_count, y_count;
  float *x, *w, *y, *dx, *dw, *dy;
  Choice forward, backward_data, backward_filter;

  Layer(const ucudnn::examples::Layer& layer_spec, DescriptorCalls descriptor_calls, int batch)
      : spec(layer_spec), calls(descriptor_calls), n(batch) {
    const cudnnConvolutionMode_t mode =
        spec.convolution_mode ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&x_desc));
    CHECK_CUDNN(cudnnCreateTensorDescriptor(&y_desc));
    CHECK_CUDNN(cudnnCreateFilterDescriptor(&w_desc));
    CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&conv_desc));
    set_tensor(x_desc, spec.channels_last, calls.tensor, n, spec.in_channels, spec.height,
               spec.width);
    const cudnnTensorFormat_t filter_format =
        spec.channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    const int cg = spec.in_channels / spec.groups;
    if (calls.filter_nd) {
      const int dims[] = {spec.out_channels, cg, spec.filter_h, spec.filter_w};
      CHECK_CUDNN(cudnnSetFilterNdDescriptor(w_desc, CUDNN_DATA_FLOAT, filter_format, 4, dims));
    } else {
      CHECK_CUDNN(cudnnSetFilter4dDescriptor(w_desc, CUDNN_DATA_FLOAT, filter_format,
                                             spec.out_channels, cg, spec.filter_h, spec.filter_w));
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
    int out_n, out_c;
    CHECK_CUDNN(
        cudnnGetConvolution2dForwardOutputDim(conv_desc, x_desc, w_desc, &out_n, &out_c, &p, &q));
    set_tensor(y_desc, spec.channels_last, calls.tensor, n, spec.out_channels, p, q);

    x_count = static_cast<std::size_t>(n) * spec.in_channels * spec.height * spec.width;
    w_count = static_cast<std::size_t>(spec.out_channels) * cg * spec.filter_h * spec.filter_w;
    y_count = static_cast<std::size_t>(n) * spec.out_channels * p * q;
    x = static_cast<float*>(device_alloc(x_count * sizeof(float)));
    dx = static_cast<float*>(device_alloc(x_count * sizeof(float)));
    w = static_cast<float*>(device_alloc(w_count * sizeof(float)));
    dw = static_cast<float*>(device_alloc(w_count * sizeof(float)));
    y = static_cast<float*>(device_alloc(y_count * sizeof(float)));
    dy = static_cast<float*>(device_alloc(y_count * sizeof(float)));
  }
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  ~Layer() {
    for (void* p : {static_cast<void*>(x), static_cast<void*>(dx), static_cast<void*>(w),
                    static_cast<void*>(dw), static_cast<void*>(y), static_cast<void*>(dy),
                    forward.buffer, backward_data.buffer, backward_filter.buffer})
      CHECK_CUDA(cudaFree(p));
    CHECK_CUDNN(cudnnDestroyTensorDescriptor(x_desc));
    CHECK_CUDNN(cudnnDestroyTensorDescriptor(y_desc));
    CHECK_CUDNN(cudnnDestroyFilterDescriptor(w_desc));
    CHECK_CUDNN(cudnnDestroyConvolutionDescriptor(conv_desc));
  }

  // Inputs from the generator: x, w, dy, and y where Forward reads it (beta != 0).
  void upload_random(std::mt19937& engine) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto upload = [&](float* device, std::size_t count) {
      std::vector<float> host(count);
      for (float& v : host) v = uniform(engine);
      CHECK_CUDA(cudaMemcpy(device, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    };
    upload(x, x_count);
    upload(w, w_count);
    upload(dy, y_count);
    if (spec.forward_beta != 0) upload(y, y_count);
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
          CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(handle, x_desc, x, w_desc, w,
                                                             conv_desc, y_desc, y, max, &returned,
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
              handle, w_desc, w, y_desc, dy, conv_desc, x_desc, dx, max, &returned, perf.data(),
              find_workspace, limit));
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
              handle, x_desc, x, y_desc, dy, conv_desc, w_desc, dw, max, &returned, perf.data(),
              find_workspace, limit));
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
    CHECK_CUDNN(
        cudnnConvolutionForward(handle, &spec.forward_alpha, x_desc, x, w_desc, w, conv_desc,
                                static_cast<cudnnConvolutionFwdAlgo_t>(forward.algo),
                                forward.buffer, forward.workspace, &spec.forward_beta, y_desc, y));
    CHECK_CUDNN(cudnnConvolutionBackwardData(
        handle, &one, w_desc, w, y_desc, dy, conv_desc,
        static_cast<cudnnConvolutionBwdDataAlgo_t>(backward_data.algo), backward_data.buffer,
        backward_data.workspace, &zero, x_desc, dx));
    CHECK_CUDNN(cudnnConvolutionBackwardFilter(
        handle, &one, x_desc, x, y_desc, dy, conv_desc,
        static_cast<cudnnConvolutionBwdFilterAlgo_t>(backward_filter.algo), backward_filter.buffer,
        backward_filter.workspace, &filter_beta, w_desc, dw));
  }

  void download(std::vector<ucudnn::examples::DumpedTensor>* out) const {
    const std::pair<const char*, std::pair<const float*, std::size_t>> tensors[] = {
        {"y", {y, y_count}}, {"dx", {dx, x_count}}, {"dw", {dw, w_count}}};
    for (const auto& [suffix, buffer] : tensors) {
      ucudnn::examples::DumpedTensor tensor{std::string(spec.name) + "." + suffix,
                                            std::vector<float>(buffer.second)};
      CHECK_CUDA(cudaMemcpy(tensor.values.data(), buffer.first, buffer.second * sizeof(float),
                            cudaMemcpyDeviceToHost));
      out->push_back(std::move(tensor));
    }
  }
};

// The whole workload on its own handle and stream. Thread 0 reports what it does.
void run_workload(const Options& options, bool report,
                  std::vector<ucudnn::examples::DumpedTensor>* out) {
  Handle handle{};
  CHECK_CUDNN(cudnnCreate(&handle));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDNN(cudnnSetStream(handle, stream));

  std::vector<std::unique_ptr<Layer>> layers;
  for (std::size_t i = 0; i < std::size(ucudnn::examples::kLayers); ++i)
    layers.push_back(
        std::make_unique<Layer>(ucudnn::examples::kLayers[i], kDescriptorCalls[i], options.batch));
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
  const Options options = parse_options(argc, argv);
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
