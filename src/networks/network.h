#pragma once
// A network as the planner sees it: named convolution layers, each giving three kernels
// (Forward, BackwardData, BackwardFilter). Networks come from JSON files (network_file.h);
// the built-in ones are examples/networks/*.json, embedded into the library at build time so
// that an installed binary needs no source tree.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/convolution_problem.h"
#include "core/expected.h"

namespace ucudnn {

struct NamedConvolution {
  std::string name;
  ConvolutionProblem problem;
  std::int64_t stream = 0;  // the stream its kernels run on (WD: one stream's kernels share)
};

struct Network {
  std::string name;
  std::vector<NamedConvolution> layers;
  // What the file said that may not be what its author meant, read as the schema says (a
  // command prints them as notes).
  std::vector<std::string> notes;
};

// alexnet, c3d, densenet40, resnet18, resnet50, vgg16.
std::vector<std::string> builtin_network_names();

// Case-insensitive, '-' and '_' ignored ("ResNet-50"); nullopt for an unknown name.
std::optional<Network> builtin_network(std::string_view name, std::int64_t batch);
std::optional<std::string_view> builtin_network_text(std::string_view name);

// A network's JSON before parsing: a cluster's rank 0 reads it and sends it to ranks on
// nodes that may not have the file.
struct NetworkText {
  std::string text;
  std::string source;        // for errors: the path, or "alexnet (built-in)"
  std::string default_name;  // when the text has no "name"
  // Notes for the Network parsed from it: a file named as the built-in network that was taken.
  std::vector<std::string> notes;
};

// A built-in network by name, else a network file by path. An unknown name that does not
// look like a path (no '/', no ".json") is an error listing the built-in networks. A file
// named exactly as a built-in network ("alexnet" in the current folder) is not read: the note
// says how to name the file ("./alexnet").
Expected<NetworkText> network_text(std::string_view name_or_path);
Expected<Network> load_network(std::string_view name_or_path, std::int64_t batch);

// The built-in files' layers, for the benchmarks.
// ResNet-50 v1.5 (stride on the 3x3 convolution): 53 convolutions.
std::vector<NamedConvolution> resnet50_convolutions(std::int64_t batch);
// AlexNet as CaffeNet has it (227x227 input; conv2, conv4, conv5 in 2 groups).
std::vector<NamedConvolution> alexnet_convolutions(std::int64_t batch);

}  // namespace ucudnn
