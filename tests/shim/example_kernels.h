#pragma once
// The kernels the example programs (examples/conv_network.cc, examples/graph_conv.cc) run, from
// the layers they share (network_layers.h): Forward, BackwardData and BackwardFilter per layer,
// in the order the programs run them, so that tests predict their plans with ucudnn's planner.
#include <sstream>
#include <string>
#include <vector>

#include "core/kernel_key.h"
#include "network_layers.h"

namespace ucudnn {

// The kernels of the example at batch `batch`, in the order it runs them; with `type` half or
// bfloat16 (computed in float) and `channels_last` every layer NHWC, those of graph_conv's
// --data-type and --channels-last.
inline std::vector<KernelKey> example_kernels(std::int64_t batch, DataType type = DataType::kFloat,
                                              bool channels_last = false) {
  std::vector<KernelKey> kernels;
  for (const auto& l : examples::kLayers) {
    auto shape = [&](std::vector<std::int64_t> dims) {
      return l.channels_last || channels_last ? TensorShape::packed_channels_last(std::move(dims))
                                              : TensorShape::packed(std::move(dims));
    };
    const auto out_h = convolution_output_size(l.height, l.filter_h, l.pad, l.stride, l.dilation);
    const auto out_w = convolution_output_size(l.width, l.filter_w, l.pad, l.stride, l.dilation);
    ConvolutionProblem p;
    p.x = shape({batch, l.in_channels, l.height, l.width});
    p.w = shape({l.out_channels, l.in_channels / l.groups, l.filter_h, l.filter_w});
    p.y = shape({batch, l.out_channels, out_h, out_w});
    p.padding = {l.pad, l.pad};
    p.stride = {l.stride, l.stride};
    p.dilation = {l.dilation, l.dilation};
    p.groups = l.groups;
    p.mode =
        l.convolution_mode ? ConvolutionMode::kConvolution : ConvolutionMode::kCrossCorrelation;
    p.data_type = type;
    p.compute_type = type == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
    for (auto op : {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter})
      kernels.push_back({op, p});
  }
  return kernels;
}

// The example's layers as a network file of the `ucudnn` tool (examples/networks/README.md).
inline std::string example_network_file() {
  std::ostringstream file;
  file << R"({"format": "ucudnn-network/1", "name": "conv_network", "layers": [)";
  bool first = true;
  for (const examples::Layer& l : examples::kLayers) {
    file << (first ? "" : ", ") << R"({"name": ")" << l.name << R"(", "input": [)" << l.in_channels
         << ", " << l.height << ", " << l.width << R"(], "output_channels": )" << l.out_channels
         << R"(, "filter": [)" << l.filter_h << ", " << l.filter_w << R"(], "padding": )" << l.pad
         << R"(, "stride": )" << l.stride << R"(, "dilation": )" << l.dilation << R"(, "groups": )"
         << l.groups << R"(, "layout": ")" << (l.channels_last ? "NHWC" : "NCHW")
         << R"(", "mode": ")" << (l.convolution_mode ? "convolution" : "cross_correlation")
         << R"("})";
    first = false;
  }
  file << "]}";
  return file.str();
}

}  // namespace ucudnn
