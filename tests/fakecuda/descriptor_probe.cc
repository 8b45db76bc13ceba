// Calls cuDNN's descriptor functions with valid and invalid arguments and prints one line per
// call: what was called, the status, and what reads back. Linked with the real -lcudnn, it runs
// against the real library or, through LD_LIBRARY_PATH, the double; the two outputs must agree
// (descriptor_differential_test.cc), which checks the double's argument checks against cuDNN's
// own rather than against ucudnn's idea of them. Each call runs in a child process: the real
// cuDNN crashes on some invalid arguments, and that is a line too ("crash").
//
// Usage: descriptor_probe SEED COUNT   (COUNT random calls after the fixed ones)
// First line: "library double" or "library real", then the calls.
#include <cudnn.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "descriptor_probe_calls.h"

namespace {

using namespace ucudnn::fakecuda::probe;

// Runs the call in a child; its output comes back through a pipe.
std::string isolated(const Call& call) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return "pipe failed";
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_ends[0]);
    const std::string result = call.run();
    if (write(pipe_ends[1], result.data(), result.size()) < 0) _exit(2);
    _exit(0);
  }
  close(pipe_ends[1]);
  std::string result;
  char buffer[512];
  for (ssize_t got; (got = read(pipe_ends[0], buffer, sizeof buffer)) > 0;)
    result.append(buffer, static_cast<std::size_t>(got));
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "crash";
  return result;
}

class Draw {
 public:
  explicit Draw(unsigned long long seed) : rng_(seed) {}
  int from(std::vector<int> values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng_)];
  }
  std::vector<int> many(int count, std::vector<int> values) {
    std::vector<int> out;
    for (int i = 0; i < count; ++i) out.push_back(from(values));
    return out;
  }

 private:
  std::mt19937_64 rng_;
};

const std::vector<int> kTypes = {CUDNN_DATA_FLOAT,    CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF,
                                 CUDNN_DATA_BFLOAT16, CUDNN_DATA_INT32,  77};
const std::vector<int> kFormats = {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC, 9};
const std::vector<int> kSizes = {-1, 0, 1, 2, 3, 7};

Call tensor_4d(Draw& d) {
  const int format = d.from(kFormats), type = d.from(kTypes);
  const auto n = d.many(4, kSizes);
  return {"SetTensor4dDescriptor format=" + std::to_string(format) +
              " type=" + std::to_string(type) + " dims=" + list(n.data(), 4),
          [=] {
            auto t = new_tensor();
            const auto s = cudnnSetTensor4dDescriptor(
                t, cudnnTensorFormat_t(format), cudnnDataType_t(type), n[0], n[1], n[2], n[3]);
            return status_text(s) + (s == CUDNN_STATUS_SUCCESS ? tensor_readback(t) : "");
          }};
}

Call tensor_4d_strided(Draw& d) {
  const int type = d.from(kTypes);
  const auto n = d.many(4, {-1, 0, 1, 2, 3});
  const auto s = d.many(4, {-1, 0, 1, 2, 3, 6, 18, 100});
  return {"SetTensor4dDescriptorEx type=" + std::to_string(type) + " dims=" + list(n.data(), 4) +
              " strides=" + list(s.data(), 4),
          [=] {
            auto t = new_tensor();
            const auto status = cudnnSetTensor4dDescriptorEx(t, cudnnDataType_t(type), n[0], n[1],
                                                             n[2], n[3], s[0], s[1], s[2], s[3]);
            return status_text(status) + (status == CUDNN_STATUS_SUCCESS ? tensor_readback(t) : "");
          }};
}

std::vector<int> packed(const std::vector<int>& dims) {
  std::vector<int> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

Call tensor_nd(Draw& d) {
  const int type = d.from(kTypes), rank = d.from({0, 1, 2, 3, 4, 5, 8, 9});
  const auto dims = d.many(rank, {-1, 0, 1, 2, 5});
  const auto strides = d.from({0, 1}) ? packed(dims) : d.many(rank, {-1, 0, 1, 2, 10, 100});
  return {"SetTensorNdDescriptor type=" + std::to_string(type) + " rank=" + std::to_string(rank) +
              " dims=" + list(dims.data(), rank) + " strides=" + list(strides.data(), rank),
          [=] {
            auto t = new_tensor();
            const auto status = cudnnSetTensorNdDescriptor(t, cudnnDataType_t(type), rank,
                                                           dims.data(), strides.data());
            return status_text(status) + (status == CUDNN_STATUS_SUCCESS ? tensor_readback(t) : "");
          }};
}

Call tensor_nd_format(Draw& d) {
  const int format = d.from(kFormats), type = d.from(kTypes);
  int rank = d.from({0, 2, 3, 4, 5, 8, 9});
  // cuDNN 9.19 lays out a channels-last tensor without spatial dimensions with an
  // uninitialized N stride (0 in one run, 36936 in another): nothing to compare with.
  if (format == CUDNN_TENSOR_NHWC && rank == 2) rank = 3;
  const auto dims = d.many(rank, {-1, 0, 1, 2, 5});
  return {"SetTensorNdDescriptorEx format=" + std::to_string(format) +
              " type=" + std::to_string(type) + " dims=" + list(dims.data(), rank),
          [=] {
            auto t = new_tensor();
            const auto status = cudnnSetTensorNdDescriptorEx(
                t, cudnnTensorFormat_t(format), cudnnDataType_t(type), rank, dims.data());
            return status_text(status) + (status == CUDNN_STATUS_SUCCESS ? tensor_readback(t) : "");
          }};
}

Call filter_nd(Draw& d) {
  const int format = d.from(kFormats), type = d.from(kTypes);
  const int rank = d.from({0, 2, 3, 4, 4, 5, 8, 9});
  const auto dims = d.many(rank, {-1, 0, 1, 2, 3});
  return {"SetFilterNdDescriptor format=" + std::to_string(format) +
              " type=" + std::to_string(type) + " dims=" + list(dims.data(), rank),
          [=] {
            auto f = new_filter();
            const auto status = cudnnSetFilterNdDescriptor(
                f, cudnnDataType_t(type), cudnnTensorFormat_t(format), rank, dims.data());
            return status_text(status) + (status == CUDNN_STATUS_SUCCESS ? filter_readback(f) : "");
          }};
}

Call convolution_nd(Draw& d) {
  const int length = d.from({0, 1, 2, 2, 3, 6, 7});
  const auto pad = d.many(length, {-1, 0, 1, 2});
  const auto stride = d.many(length, {-1, 0, 1, 2});
  const auto dilation = d.many(length, {-1, 0, 1, 2});
  const int mode = d.from({CUDNN_CONVOLUTION, CUDNN_CROSS_CORRELATION, 5});
  const int type = d.from(kTypes);
  return {"SetConvolutionNdDescriptor length=" + std::to_string(length) +
              " pad=" + list(pad.data(), length) + " stride=" + list(stride.data(), length) +
              " dilation=" + list(dilation.data(), length) + " mode=" + std::to_string(mode) +
              " type=" + std::to_string(type),
          [=] {
            auto c = new_convolution();
            const auto status = cudnnSetConvolutionNdDescriptor(
                c, length, pad.data(), stride.data(), dilation.data(), cudnnConvolutionMode_t(mode),
                cudnnDataType_t(type));
            return status_text(status) +
                   (status == CUDNN_STATUS_SUCCESS ? convolution_readback(c) : "");
          }};
}

Call convolution_options(Draw& d) {
  const int groups = d.from({-1, 0, 1, 2, 3}), math = d.from({0, 1, 2, 3, 9});
  const int reorder = d.from({CUDNN_DEFAULT_REORDER, CUDNN_NO_REORDER, 4});
  return {"SetConvolutionGroupCount/MathType/ReorderType groups=" + std::to_string(groups) +
              " math=" + std::to_string(math) + " reorder=" + std::to_string(reorder),
          [=] {
            auto c = new_convolution();
            cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                            CUDNN_DATA_FLOAT);
            const auto grouped = cudnnSetConvolutionGroupCount(c, groups);
            const auto mathed = cudnnSetConvolutionMathType(c, cudnnMathType_t(math));
            const auto reordered = cudnnSetConvolutionReorderType(c, cudnnReorderType_t(reorder));
            std::string out = "groups=" + status_text(grouped) + " math=" + status_text(mathed) +
                              " reorder=" + status_text(reordered);
            cudnnReorderType_t reorder_got{};
            const auto got = cudnnGetConvolutionReorderType(c, &reorder_got);
            out += " reorder_get=" + status_text(got) + ":" + std::to_string(reorder_got);
            return out + convolution_readback(c);
          }};
}

// A convolution's output shape from tensor, filter and convolution descriptors that each set
// successfully or not, in 2-d or 3-d.
Call output_dims(Draw& d) {
  const int spatial = d.from({2, 2, 3});
  const int rank = spatial + 2;
  std::vector<int> x = {d.from({1, 2}), d.from({2, 4, 6})};
  std::vector<int> w = {d.from({2, 3, 4}), d.from({1, 2, 3, 4, 6})};
  for (int i = 0; i < spatial; ++i) x.push_back(d.from({1, 3, 5, 8}));
  for (int i = 0; i < spatial; ++i) w.push_back(d.from({1, 2, 3, 5}));
  const auto pad = d.many(spatial, {0, 1, 2});
  const auto stride = d.many(spatial, {1, 2, 3});
  const auto dilation = d.many(spatial, {1, 2});
  const int groups = d.from({1, 1, 2, 3});
  const int x_type = d.from({CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE});
  const int w_type = d.from({CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE});
  const int w_format = d.from({CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC});
  const int asked = d.from({rank, rank, rank, rank - 1, rank + 1});
  const bool two_d_call = spatial == 2 && d.from({0, 1});
  return {std::string(two_d_call ? "GetConvolution2dForwardOutputDim"
                                 : "GetConvolutionNdForwardOutputDim") +
              " x=" + list(x.data(), rank) + " x_type=" + std::to_string(x_type) +
              " w=" + list(w.data(), rank) + " w_type=" + std::to_string(w_type) +
              " w_format=" + std::to_string(w_format) + " pad=" + list(pad.data(), spatial) +
              " stride=" + list(stride.data(), spatial) +
              " dilation=" + list(dilation.data(), spatial) + " groups=" + std::to_string(groups) +
              " nbDims=" + std::to_string(asked),
          [=] {
            auto xt = new_tensor();
            auto wf = new_filter();
            auto c = new_convolution();
            std::string out = "x=";
            out += status_text(cudnnSetTensorNdDescriptor(xt, cudnnDataType_t(x_type), rank,
                                                          x.data(), packed(x).data()));
            out += " w=";
            out += status_text(cudnnSetFilterNdDescriptor(
                wf, cudnnDataType_t(w_type), cudnnTensorFormat_t(w_format), rank, w.data()));
            out += " conv=";
            out += status_text(cudnnSetConvolutionNdDescriptor(
                c, spatial, pad.data(), stride.data(), dilation.data(), CUDNN_CROSS_CORRELATION,
                CUDNN_DATA_FLOAT));
            out += " groups=";
            out += status_text(cudnnSetConvolutionGroupCount(c, groups));
            int y[8] = {};
            cudnnStatus_t status;
            if (two_d_call)
              status = cudnnGetConvolution2dForwardOutputDim(c, xt, wf, &y[0], &y[1], &y[2], &y[3]);
            else
              status = cudnnGetConvolutionNdForwardOutputDim(c, xt, wf, asked, y);
            out += " out=" + status_text(status);
            if (status == CUDNN_STATUS_SUCCESS) out += " y=" + list(y, rank);
            return out;
          }};
}

Call activation(Draw& d) {
  const int mode = d.from({0, 1, 2, 3, 4, 5, 9}), nan = d.from({0, 1, 5});
  const double coef = d.from({0, 1, 6});
  return {"SetActivationDescriptor mode=" + std::to_string(mode) + " nan=" + std::to_string(nan) +
              " coef=" + std::to_string(coef),
          [=] {
            cudnnActivationDescriptor_t a = nullptr;
            cudnnCreateActivationDescriptor(&a);
            const auto status = cudnnSetActivationDescriptor(a, cudnnActivationMode_t(mode),
                                                             cudnnNanPropagation_t(nan), coef);
            std::string out = status_text(status);
            if (status != CUDNN_STATUS_SUCCESS) return out;
            cudnnActivationMode_t m{};
            cudnnNanPropagation_t p{};
            double k = -1;
            const auto got = cudnnGetActivationDescriptor(a, &m, &p, &k);
            return out + " get=" + status_text(got) + " mode=" + std::to_string(m) +
                   " nan=" + std::to_string(p) + " coef=" + std::to_string(k);
          }};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SEED COUNT\n", argv[0]);
    return 2;
  }
  // The double's runtime has hooks the real one lacks.
  const bool double_loaded = dlsym(RTLD_DEFAULT, "fakecuda_find_allocation") != nullptr ||
                             dlsym(RTLD_DEFAULT, "fakecuda_issue") != nullptr;
  std::printf("library %s %zu\n", double_loaded ? "double" : "real", cudnnGetVersion());
  Draw draw(std::strtoull(argv[1], nullptr, 10));
  std::vector<Call> calls = fixed_calls();
  const std::vector<std::function<Call(Draw&)>> kinds = {
      tensor_4d,      tensor_4d_strided,   tensor_nd,   tensor_nd_format, filter_nd,
      convolution_nd, convolution_options, output_dims, output_dims,      activation};
  const int count = std::atoi(argv[2]);
  for (int i = 0; i < count; ++i) calls.push_back(kinds[i % kinds.size()](draw));
  for (const Call& call : calls)
    std::printf("%s => %s\n", call.what.c_str(), isolated(call).c_str());
  return 0;
}
