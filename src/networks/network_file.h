#pragma once
// Network files: a network's convolution layers as JSON, so that `ucudnn bench` and
// `ucudnn plan` can pre-benchmark any model, not only the built-in ones. The schema:
//
//   {
//     "format": "ucudnn-network/1",        optional; when present exactly this
//     "name": "alexnet",                   optional; default: the file's name without .json
//     "description": "...",                optional, ignored ("comment" too, at any level)
//     "layout": "NCHW",                    optional defaults for every layer (see below)
//     "data_type": "float", "compute_type": "float", "math_type": "default",
//     "mode": "cross_correlation",
//     "layers": [                          required, at least one
//       {"name": "conv1",                  required, unique
//        "input": [3, 227, 227],           required: [C, H, W], or [N, C, H, W] with N ignored
//        "output_channels": 96,            required
//        "filter": [11, 11],               required: [R, S], or one number for both
//        "padding": [0, 0],                default 0     } each [h, w] or one number;
//        "stride": [4, 4],                 default 1     } padding >= 0, the others >= 1
//        "dilation": [1, 1],               default 1     }
//        "groups": 1,                      default 1; divides input and output channels
//        "layout": "NCHW" | "NHWC",        x, y and the filter (KCRS or KRSC), packed
//        "data_type": "float" | "double" | "half" | "bfloat16",
//        "compute_type": ...,              default: float for half and bfloat16, else the
//                                          data type (what PyTorch and TensorFlow use)
//        "math_type": "default" | "tensor_op" | "tensor_op_allow_conversion" | "fma",
//        "mode": "cross_correlation" | "convolution",
//        "stream": 0},                     default 0: the stream the layer's kernels run on.
//                                          Layers on other streams may run at the same time,
//                                          so WD gives each stream's kernels a workspace
//                                          segment of their own; one stream's kernels share one.
//       ...]
//   }
//
// The mini-batch size is not part of the file: the caller gives it. Unknown fields are
// errors (a misspelt "strides" would otherwise silently mean stride 1). Every error names
// the file, the field as a JSON path and the value, e.g.
//   "net.json: layers[3].stride[1]: -2 is not an integer >= 1".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "networks/network.h"

namespace ucudnn {

inline constexpr const char* kNetworkFormat = "ucudnn-network/1";

// `source` names the text in errors (a path, or "alexnet (built-in)"); `default_name` is the
// network's name when the file has none. `batch` must be >= 1.
Expected<Network> parse_network(std::string_view text, const std::string& source,
                                const std::string& default_name, std::int64_t batch);
// The same, the text's notes first among the network's.
Expected<Network> parse_network(const NetworkText& text, std::int64_t batch);

// Reads a file; an unreadable one is an error naming it and the reason.
Expected<NetworkText> read_network_text(const std::string& path);
// Reads and parses a file.
Expected<Network> read_network_file(const std::string& path, std::int64_t batch);

}  // namespace ucudnn
