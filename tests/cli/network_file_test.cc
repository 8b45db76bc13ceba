// Network files: the built-in networks, and errors that name the file, the field and the
// value.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "core/kernel_key.h"
#include "networks/network.h"
#include "networks/network_file.h"
#include "support/random_seed.h"

namespace ucudnn {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The error of parsing a network whose only layer is `layer`.
std::string layer_error(const std::string& layer) {
  auto network = parse_network(R"({"layers": [)" + layer + "]}", "net.json", "net", 8);
  EXPECT_FALSE(network) << "expected an error for " << layer;
  return network ? "" : network.error();
}

constexpr const char* kGoodLayer =
    R"({"name": "c", "input": [96, 27, 27], "output_channels": 256, "filter": [5, 5],
        "padding": [2, 2], "groups": 2})";

TEST(BuiltinNetworks, EveryOneParsesWithItsConvolutionCount) {
  // ResNet-18: conv1 + 8 basic blocks x 2 + 3 projection shortcuts. ResNet-50: conv1 + 16
  // bottlenecks x 3 + 4 projection shortcuts. DenseNet-40: the first convolution, 3 blocks of
  // 12, 2 transitions. C3D: its eight 3x3x3 convolutions.
  const std::map<std::string, std::size_t> expected = {{"alexnet", 5},     {"c3d", 8},
                                                       {"densenet40", 39}, {"resnet18", 20},
                                                       {"resnet50", 53},   {"vgg16", 13}};
  std::vector<std::string> names;
  for (const auto& [name, count] : expected) names.push_back(name);
  EXPECT_EQ(builtin_network_names(), names);
  for (const auto& [name, count] : expected) {
    auto network = builtin_network(name, 4);
    ASSERT_TRUE(network) << name;
    EXPECT_EQ(network->name, name);
    EXPECT_EQ(network->layers.size(), count) << name;
    for (const auto& layer : network->layers) {
      EXPECT_EQ(layer.problem.batch(), 4) << name << " " << layer.name;
      EXPECT_FALSE(layer.problem.validation_error()) << name << " " << layer.name;
    }
  }
}

TEST(BuiltinNetworks, AreTheFilesOfExamplesNetworks) {
  for (const auto& name : builtin_network_names()) {
    const auto text = builtin_network_text(name);
    ASSERT_TRUE(text) << name;
    EXPECT_EQ(*text,
              read_text(std::string(UCUDNN_SOURCE_DIR) + "/examples/networks/" + name + ".json"))
        << name;
  }
}

TEST(BuiltinNetworks, NamesAreCaseAndDashInsensitive) {
  EXPECT_TRUE(builtin_network("ResNet-50", 1));
  EXPECT_TRUE(builtin_network("VGG_16", 1));
  EXPECT_FALSE(builtin_network("lenet", 1));
}

TEST(BuiltinNetworks, AlexNetHasCaffeNetShapes) {
  const auto layers = alexnet_convolutions(32);
  ASSERT_EQ(layers.size(), 5u);
  EXPECT_EQ(layers[0].problem, make_conv2d_problem({32, 3, 227, 227, 96, 11, 11, 0, 0, 4, 4}));
  EXPECT_EQ(layers[1].problem,
            make_conv2d_problem({32, 96, 27, 27, 256, 5, 5, 2, 2, 1, 1, 1, 1, 2}));
  EXPECT_EQ(layers[4].problem,
            make_conv2d_problem({32, 384, 13, 13, 256, 3, 3, 1, 1, 1, 1, 1, 1, 2}));
}

TEST(BuiltinNetworks, ResNet50DownsamplesOnTheThreeByThree) {
  const auto layers = resnet50_convolutions(2);
  ASSERT_EQ(layers.size(), 53u);
  const auto find = [&](const std::string& name) {
    for (const auto& layer : layers)
      if (layer.name == name) return layer.problem;
    ADD_FAILURE() << name;
    return ConvolutionProblem{};
  };
  EXPECT_EQ(find("res3a_branch2b"), make_conv2d_problem({2, 128, 56, 56, 128, 3, 3, 1, 1, 2, 2}));
  EXPECT_EQ(find("res3a_branch1"), make_conv2d_problem({2, 256, 56, 56, 512, 1, 1, 0, 0, 2, 2}));
  EXPECT_EQ(find("res5c_branch2c"), make_conv2d_problem({2, 512, 7, 7, 2048, 1, 1}));
}

TEST(NetworkFile, DefaultsAndOptionalFields) {
  auto network = parse_network(
      R"({"format": "ucudnn-network/1", "comment": "x", "layers": [
            {"name": "a", "input": [7, 3, 10, 12], "output_channels": 4, "filter": 3},
            {"name": "b", "input": [4, 8, 10], "output_channels": 6, "filter": [3, 1],
             "padding": [1, 0], "stride": 2, "dilation": [2, 1], "layout": "NHWC",
             "data_type": "half", "math_type": "tensor_op", "mode": "convolution",
             "stream": 3}]})",
      "x.json", "fallback", 5);
  ASSERT_TRUE(network) << network.error();
  EXPECT_EQ(network->name, "fallback");
  // The file's N (7) gives way to the caller's batch.
  EXPECT_EQ(network->layers[0].problem, make_conv2d_problem({5, 3, 10, 12, 4, 3, 3}));
  // Four numbers with a one-number filter may be a 3-d layer's [C, D, H, W]: read as the schema
  // says, and noted; a 2-d layer whose filter is a list is not ambiguous.
  ASSERT_EQ(network->notes.size(), 1u);
  EXPECT_EQ(network->notes[0],
            "x.json: a: an input of 4 numbers with a one-number filter is read as [N, C, H, W] of "
            "a 2-d layer, N replaced by the batch; a 3-d layer gives its filter as a list ([3, 3, "
            "3]), and a 2-d one can drop N to say so");
  const ConvolutionProblem& b = network->layers[1].problem;
  EXPECT_EQ(b.x, TensorShape::packed_channels_last({5, 4, 8, 10}));
  EXPECT_EQ(b.w, TensorShape::packed_channels_last({6, 4, 3, 1}));
  EXPECT_EQ(b.y.dims, (std::vector<std::int64_t>{5, 6, 3, 5}));
  EXPECT_EQ(b.padding, (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(b.stride, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(b.dilation, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(b.data_type, DataType::kHalf);
  EXPECT_EQ(b.compute_type, DataType::kFloat);  // as frameworks run half
  EXPECT_EQ(b.math_type, MathType::kTensorOp);
  EXPECT_EQ(b.mode, ConvolutionMode::kConvolution);
  EXPECT_EQ(network->layers[0].stream, 0) << "one stream unless the file says";
  EXPECT_EQ(network->layers[1].stream, 3);
}

TEST(NetworkFile, TopLevelDefaultsApplyToEveryLayer) {
  auto network = parse_network(
      R"({"name": "n", "data_type": "double", "layout": "nhwc", "layers": [
            {"name": "a", "input": [3, 8, 8], "output_channels": 4, "filter": 3},
            {"name": "b", "input": [3, 8, 8], "output_channels": 4, "filter": 3,
             "data_type": "half", "compute_type": "half"}]})",
      "x.json", "x", 1);
  ASSERT_TRUE(network) << network.error();
  EXPECT_EQ(network->name, "n");
  EXPECT_EQ(network->layers[0].problem.data_type, DataType::kDouble);
  EXPECT_EQ(network->layers[0].problem.compute_type, DataType::kDouble);
  EXPECT_EQ(network->layers[0].problem.x, TensorShape::packed_channels_last({1, 3, 8, 8}));
  EXPECT_EQ(network->layers[1].problem.data_type, DataType::kHalf);
  EXPECT_EQ(network->layers[1].problem.compute_type, DataType::kHalf);
}

TEST(NetworkFile, ErrorsNameTheFileTheFieldAndTheValue) {
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "filter": 3})"),
            "net.json: layers[0].output_channels: missing (an integer >= 1)");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": "96",
                           "filter": 3})"),
            "net.json: layers[0].output_channels: \"96\" is not an integer >= 1");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "stride": -1})"),
            "net.json: layers[0].stride: -1 is not an integer >= 1");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "stride": [1, -2]})"),
            "net.json: layers[0].stride[1]: -2 is not an integer >= 1");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [96, 8, 8], "output_channels": 4,
                           "filter": 3, "groups": 5})"),
            "net.json: layers[0].groups: 5 does not divide the input channels (96)");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [96, 8, 8], "output_channels": 6,
                           "filter": 3, "groups": 4})"),
            "net.json: layers[0].groups: 4 does not divide output_channels (6)");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "strides": 2})"),
            "net.json: layers[0].strides: unknown field (valid fields: comment, compute_type, "
            "data_type, dilation, filter, groups, input, layout, math_type, mode, name, "
            "output_channels, padding, stream, stride)");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8], "output_channels": 4, "filter": 3})"),
            "net.json: layers[0].input: [3, 8] is not a list [C, H, W] or [N, C, H, W]");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8.5], "output_channels": 4,
                           "filter": 3})"),
            "net.json: layers[0].input[2]: 8.5 is not an integer >= 1");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 4, 4], "output_channels": 4,
                           "filter": [7, 3]})"),
            "net.json: layers[0].filter: [7, 3] with dilation [1, 1] is larger than the padded "
            "input [4, 4]");
  // The filter's list gives the spatial rank; the input must agree.
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": [3, 3, 3]})"),
            "net.json: layers[0].input: [3, 8, 8] is not a list [C, D, H, W] or [N, C, D, H, W]");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8, 8], "output_channels": 4,
                           "filter": [3, 3, 3], "padding": [1, 1]})"),
            "net.json: layers[0].padding: [1, 1] has 2 entries; expected 3 ([d, h, w]) or one "
            "integer for all");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": [3, 3, 3, 3]})"),
            "net.json: layers[0].filter: [3, 3, 3, 3] has 4 entries; expected 2 ([h, w]) or one "
            "integer for both");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "data_type": "int4"})"),
            "net.json: layers[0].data_type: \"int4\" is not one of float, double, half, "
            "bfloat16");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "stream": -1})"),
            "net.json: layers[0].stream: -1 is not an integer >= 0");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "stream": "side"})"),
            "net.json: layers[0].stream: \"side\" is not an integer >= 0");
  EXPECT_EQ(layer_error(R"({"input": [3, 8, 8], "output_channels": 4, "filter": 3})"),
            "net.json: layers[0].name: missing (a unique layer name)");
  // A pair of types cuDNN has no configuration for is refused before anything is measured.
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "data_type": "double", "compute_type": "half"})"),
            "net.json: layers[0].compute_type: \"half\" with data_type \"double\": cuDNN "
            "computes double data in double, float in float, half in half or float, bfloat16 in "
            "float");
  EXPECT_NE(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "data_type": "float", "compute_type": "double"})")
                .find("cuDNN computes double data in double"),
            std::string::npos);
  // A whole number beyond 64 bits is too large, not "not an integer".
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels":
                           99999999999999999999999, "filter": 3})"),
            "net.json: layers[0].output_channels: 9.999999999999999e+22 is larger than 2147483647");
  // A field written twice (an edit in one place, the old value left in another) is refused:
  // JSON would keep one of the two without a word.
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "padding": [1, 1], "filter": 5})"),
            "net.json: layers[0].filter: written twice in one object (JSON would keep one of the "
            "two values)");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4294967296,
                           "filter": 3})"),
            "net.json: layers[0].output_channels: 4294967296 is larger than 2147483647");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 0,
                           "filter": 3})"),
            "net.json: layers[0].output_channels: 0 is not an integer >= 1");
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "dilation": 0})"),
            "net.json: layers[0].dilation: 0 is not an integer >= 1");
  EXPECT_EQ(layer_error("[1, 2]"), "net.json: layers[0]: [1, 2] is not an object");
  // The output's size comes from several fields: its shape is named, not output_channels (the
  // field named before, although a padding of 2e9 made it so).
  EXPECT_EQ(layer_error(R"({"name": "c", "input": [3, 8, 8], "output_channels": 4,
                           "filter": 3, "padding": 2000000000})"),
            "net.json: layers[0]: the output, [4, 4000000006, 4000000006], has more than 2^40 "
            "elements per image");
}

// C3D's layers are 3-d: [C, D, H, W] inputs, 3x3x3 filters, one padding for all three.
TEST(NetworkFile, ThreeDimensionalLayersFromTheFiltersRank) {
  const auto c3d = builtin_network("c3d", 4);
  ASSERT_TRUE(c3d);
  ASSERT_EQ(c3d->layers.size(), 8u);
  const ConvolutionProblem& conv2a = c3d->layers[1].problem;
  EXPECT_EQ(conv2a.x.dims, (std::vector<std::int64_t>{4, 64, 16, 56, 56}));
  EXPECT_EQ(conv2a.w.dims, (std::vector<std::int64_t>{128, 64, 3, 3, 3}));
  EXPECT_EQ(conv2a.y.dims, (std::vector<std::int64_t>{4, 128, 16, 56, 56}));
  EXPECT_EQ(conv2a.padding, (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_FALSE(conv2a.validation_error());
  const auto one_d = parse_network(
      R"({"format": "ucudnn-network/1", "layers": [{"name": "c", "input": [2, 4, 30],
          "output_channels": 3, "filter": [5], "stride": 2}]})",
      "net.json", "net", 2);
  ASSERT_TRUE(one_d) << one_d.error();
  EXPECT_EQ(one_d->layers[0].problem.y.dims, (std::vector<std::int64_t>{2, 3, 13}));
}

TEST(NetworkFile, DocumentErrors) {
  auto parse = [](const std::string& text) {
    auto network = parse_network(text, "net.json", "net", 1);
    return network ? std::string("no error") : network.error();
  };
  EXPECT_EQ(parse("{}"), "net.json: layers: missing (a list of convolution layers)");
  EXPECT_EQ(parse(R"({"layers": []})"), "net.json: layers: [] is not a non-empty list of layers");
  EXPECT_EQ(parse(R"({"layers": [{"name": "a", "input": [3, 8, 8], "output_channels": 4,
                    "filter": 3}, {"name": "a", "input": [3, 8, 8], "output_channels": 4,
                    "filter": 3}]})"),
            "net.json: layers[1].name: \"a\" is also the name of layers[0]");
  EXPECT_EQ(parse(R"({"format": "ucudnn-network/2", "layers": []})"),
            "net.json: format: \"ucudnn-network/2\" is not \"ucudnn-network/1\"");
  EXPECT_EQ(parse(R"({"layers": [], "depth": 50})"),
            "net.json: depth: unknown field (valid fields: comment, compute_type, data_type, "
            "description, format, layers, layout, math_type, mode, name)");
  EXPECT_EQ(parse("[1]"), "net.json: [1] is not a network (a JSON object with \"layers\")");
  const std::string not_json = parse("{\"layers\": [\n  {\"name\": oops}]}");
  EXPECT_EQ(not_json.rfind("net.json: not valid JSON: parse error at line 2, column", 0), 0u)
      << not_json;
}

TEST(NetworkFile, FileErrorsNameTheFile) {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("ucudnn-network-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const std::string missing = (folder / "missing.json").string();
  auto network = read_network_file(missing, 1);
  ASSERT_FALSE(network);
  EXPECT_EQ(network.error(), missing + ": cannot read: No such file or directory");
  network = read_network_file(folder.string(), 1);
  ASSERT_FALSE(network);
  EXPECT_EQ(network.error(), folder.string() + ": cannot read: it is a directory");

  const std::string bad = (folder / "bad.json").string();
  std::ofstream(bad) << R"({"layers": [{"name": "a", "input": [3, 8, 8], "output_channels": 4,
                          "filter": 3, "stride": 0}]})";
  network = read_network_file(bad, 1);
  ASSERT_FALSE(network);
  EXPECT_EQ(network.error(), bad + ": layers[0].stride: 0 is not an integer >= 1");
  // load_network: a built-in name, else a path; a bare unknown name lists the built-ins.
  EXPECT_FALSE(load_network(bad, 1));
  auto unknown = load_network("lenet", 1);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(
      unknown.error(),
      "'lenet' is not a built-in network (alexnet, c3d, densenet40, resnet18, resnet50, vgg16) "
      "nor a network file");
  // A file's name without its ".json", as one names a built-in network.
  const std::string bare = (folder / "bad").string();
  auto without_extension = load_network(bare, 1);
  ASSERT_FALSE(without_extension);
  EXPECT_EQ(without_extension.error(),
            bare + ": cannot read: No such file or directory; did you mean " + bare + ".json?")
      << without_extension.error();
  std::filesystem::remove_all(folder);
}

// Random valid layers read back as the problems make_conv2d_problem builds.
TEST(NetworkFile, RandomLayersReadBackExactly) {
  testing::SeededRandom random;
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t groups = random.uniform(1, 4);
    Conv2dShape s{};
    s.batch = random.uniform(1, 64);
    s.in_channels = groups * random.uniform(1, 16);
    s.out_channels = groups * random.uniform(1, 16);
    s.kernel_h = random.uniform(1, 5);
    s.kernel_w = random.uniform(1, 5);
    s.pad_h = random.uniform(0, 3);
    s.pad_w = random.uniform(0, 3);
    s.stride_h = random.uniform(1, 3);
    s.stride_w = random.uniform(1, 3);
    s.dilation_h = random.uniform(1, 2);
    s.dilation_w = random.uniform(1, 2);
    s.groups = groups;
    s.height = random.uniform(s.dilation_h * (s.kernel_h - 1) + 1, 40);
    s.width = random.uniform(s.dilation_w * (s.kernel_w - 1) + 1, 40);
    std::ostringstream layer;
    layer << R"({"layers": [{"name": "l", "input": [)" << s.in_channels << ", " << s.height << ", "
          << s.width << R"(], "output_channels": )" << s.out_channels << R"(, "filter": [)"
          << s.kernel_h << ", " << s.kernel_w << R"(], "padding": [)" << s.pad_h << ", " << s.pad_w
          << R"(], "stride": [)" << s.stride_h << ", " << s.stride_w << R"(], "dilation": [)"
          << s.dilation_h << ", " << s.dilation_w << R"(], "groups": )" << groups << "}]}";
    auto network = parse_network(layer.str(), "r.json", "r", s.batch);
    ASSERT_TRUE(network) << layer.str() << ": " << network.error();
    EXPECT_EQ(network->layers[0].problem, make_conv2d_problem(s)) << layer.str();
  }
}

// Hostile numbers anywhere: an error or a consistent problem, never a crash or an overflow
// (the sanitizer build checks the arithmetic).
TEST(NetworkFile, ExtremeNumbersNeverCrash) {
  testing::SeededRandom random;
  const std::vector<std::string> numbers = {"-9223372036854775808",
                                            "-1",
                                            "0",
                                            "1",
                                            "2",
                                            "3",
                                            "7",
                                            "65536",
                                            "2147483647",
                                            "2147483648",
                                            "1099511627776",
                                            "9223372036854775807",
                                            "18446744073709551615",
                                            "1.5",
                                            "1e300"};
  // Mostly small numbers, so that some layers are valid and the late checks are reached.
  auto any = [&] {
    if (random.chance(0.85)) return std::to_string(random.uniform(1, 3));
    return numbers[static_cast<std::size_t>(random.uniform(0, numbers.size() - 1))];
  };
  std::size_t accepted = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const std::string layer = R"({"layers": [{"name": "l", "input": [)" + any() + ", " + any() +
                              ", " + any() + R"(], "output_channels": )" + any() +
                              R"(, "filter": [)" + any() + ", " + any() + R"(], "padding": )" +
                              any() + R"(, "stride": [)" + any() + ", " + any() +
                              R"(], "dilation": )" + any() + R"(, "groups": )" + any() + "}]}";
    const std::int64_t batch = random.chance(0.5) ? 1 : 65536;
    auto network = parse_network(layer, "x.json", "x", batch);
    if (!network) {
      EXPECT_EQ(network.error().rfind("x.json: layers[0]", 0), 0u) << network.error();
      continue;
    }
    ++accepted;
    EXPECT_FALSE(network->layers[0].problem.validation_error()) << layer;
  }
  std::cout << accepted << " of 2000 random layers were valid\n";
}

}  // namespace
}  // namespace ucudnn
