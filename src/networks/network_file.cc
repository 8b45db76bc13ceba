// The network-file reader: every field of the schema in network_file.h, each checked with an
// error naming the field, the layer and the value. Long because it is one flat list of
// fields, each a few lines.
#include "networks/network_file.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "networks/json_text.h"

namespace ucudnn {

namespace {

using json = nlohmann::json;

// cuDNN's descriptors take int dimensions.
constexpr std::int64_t kLargestDimension = std::numeric_limits<std::int32_t>::max();
// Per image, so that the packed strides and a batch of up to 2^22 images stay in int64.
constexpr std::int64_t kLargestImageElements = std::int64_t{1} << 40;
constexpr std::int64_t kLargestBatchElements = std::int64_t{1} << 62;
constexpr std::uintmax_t kLargestFileBytes = 64u << 20;

const std::set<std::string> kTopFields = {"format", "name",      "description",  "comment",
                                          "layout", "data_type", "compute_type", "math_type",
                                          "mode",   "layers"};
const std::set<std::string> kLayerFields = {"name",    "input",     "output_channels", "filter",
                                            "padding", "stride",    "dilation",        "groups",
                                            "layout",  "data_type", "compute_type",    "math_type",
                                            "mode",    "comment",   "stream"};

// Settings that the top level gives as defaults and a layer may override.
struct LayerTypes {
  bool channels_last = false;
  DataType data_type = DataType::kFloat;
  std::optional<DataType> compute_type;  // unset: follows the data type
  MathType math_type = MathType::kDefault;
  ConvolutionMode mode = ConvolutionMode::kCrossCorrelation;
};

template <typename T>
struct Choice {
  const char* name;
  T value;
};

constexpr Choice<bool> kLayouts[] = {{"NCHW", false}, {"NHWC", true}};
constexpr Choice<DataType> kDataTypes[] = {{"float", DataType::kFloat},
                                           {"double", DataType::kDouble},
                                           {"half", DataType::kHalf},
                                           {"bfloat16", DataType::kBFloat16}};
constexpr Choice<DataType> kComputeTypes[] = {
    {"float", DataType::kFloat}, {"double", DataType::kDouble}, {"half", DataType::kHalf}};
constexpr Choice<MathType> kMathTypes[] = {
    {"default", MathType::kDefault},
    {"tensor_op", MathType::kTensorOp},
    {"tensor_op_allow_conversion", MathType::kTensorOpAllowConversion},
    {"fma", MathType::kFma},
    {"tensor_op_reduced_precision_reduction", MathType::kTensorOpReducedPrecision},
    {"tensor_op_down_convert", MathType::kTensorOpDownConvert}};
constexpr Choice<ConvolutionMode> kModes[] = {
    {"cross_correlation", ConvolutionMode::kCrossCorrelation},
    {"convolution", ConvolutionMode::kConvolution}};

// Reads one document; the first problem found is the error.
class NetworkReader {
 public:
  NetworkReader(const std::string& source, std::int64_t batch) : source_(source), batch_(batch) {}

  Expected<Network> read(const json& document, const std::string& default_name);

 private:
  Error error(const std::string& path, const std::string& message) const {
    return Error{source_ + ": " + path + ": " + message};
  }
  std::optional<Error> unknown_fields(const json& object, const std::string& path,
                                      const std::set<std::string>& known) const;
  Expected<std::int64_t> integer(const json& value, const std::string& path, std::int64_t minimum,
                                 std::int64_t maximum = kLargestDimension) const;
  // One number for every spatial dimension, or a list of `rank` ([h, w] in 2-d); `fallback`
  // when absent.
  Expected<std::vector<std::int64_t>> spatial(const json& layer, const std::string& field,
                                              const std::string& path, std::int64_t minimum,
                                              std::optional<std::int64_t> fallback,
                                              std::size_t rank) const;
  template <typename T, std::size_t N>
  Expected<T> choice(const json& value, const std::string& path,
                     const Choice<T> (&choices)[N]) const;
  std::optional<Error> read_types(const json& object, const std::string& path,
                                  LayerTypes& types) const;
  Expected<NamedConvolution> read_layer(const json& layer, const std::string& path,
                                        const LayerTypes& defaults) const;

  const std::string& source_;
  std::int64_t batch_;
};

std::optional<Error> NetworkReader::unknown_fields(const json& object, const std::string& path,
                                                   const std::set<std::string>& known) const {
  for (auto it = object.begin(); it != object.end(); ++it)
    if (!known.count(it.key()))
      return error(path + (path.empty() ? "" : ".") + it.key(),
                   "unknown field (valid fields: " + join_names(known) + ")");
  return std::nullopt;
}

Expected<std::int64_t> NetworkReader::integer(const json& value, const std::string& path,
                                              std::int64_t minimum, std::int64_t maximum) const {
  const std::string wanted = "is not an integer >= " + std::to_string(minimum);
  if (!value.is_number_integer()) return error(path, describe(value) + " " + wanted);
  // nlohmann keeps non-negative integers unsigned: compare before converting.
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() > static_cast<std::uint64_t>(maximum))
    return error(path, describe(value) + " is larger than " + std::to_string(maximum));
  const auto number = value.get<std::int64_t>();
  if (number < minimum) return error(path, describe(value) + " " + wanted);
  if (number > maximum)
    return error(path, describe(value) + " is larger than " + std::to_string(maximum));
  return number;
}

namespace {
// "h, w" in 2-d, "d, h, w" in 3-d, "w" in 1-d.
const char* spatial_letters(std::size_t rank) {
  static const char* const names[] = {"w", "h, w", "d, h, w"};
  return names[std::min<std::size_t>(rank, 3) - 1];
}
std::string spatial_names(std::size_t rank) {
  return std::string("[") + spatial_letters(rank) + "]";
}
}  // namespace

Expected<std::vector<std::int64_t>> NetworkReader::spatial(
    const json& layer, const std::string& field, const std::string& path, std::int64_t minimum,
    std::optional<std::int64_t> fallback, std::size_t rank) const {
  const std::string at = path + "." + field;
  const std::string names = spatial_names(rank);
  auto found = layer.find(field);
  if (found == layer.end()) {
    if (!fallback)
      return error(at, "missing (an integer >= " + std::to_string(minimum) + ", or " + names + ")");
    return std::vector<std::int64_t>(rank, *fallback);
  }
  if (found->is_array()) {
    if (found->size() != rank)
      return error(at, describe(*found) + " has " + std::to_string(found->size()) +
                           " entries; expected " + std::to_string(rank) + " (" + names +
                           ") or one integer for " + (rank == 2 ? "both" : "all"));
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < rank; ++i) {
      auto value = integer((*found)[i], at + "[" + std::to_string(i) + "]", minimum);
      if (!value) return Error{value.error()};
      values.push_back(*value);
    }
    return values;
  }
  if (!found->is_number())
    return error(at, describe(*found) + " is not an integer >= " + std::to_string(minimum) +
                         " or a list " + names + " of them");
  auto value = integer(*found, at, minimum);
  if (!value) return Error{value.error()};
  return std::vector<std::int64_t>(rank, *value);
}

template <typename T, std::size_t N>
Expected<T> NetworkReader::choice(const json& value, const std::string& path,
                                  const Choice<T> (&choices)[N]) const {
  std::string valid;
  for (const auto& c : choices) {
    if (value.is_string() && equals_ignoring_case(value.get<std::string>(), c.name)) return c.value;
    valid += (valid.empty() ? "" : ", ") + std::string(c.name);
  }
  return error(path, describe(value) + " is not one of " + valid);
}

std::optional<Error> NetworkReader::read_types(const json& object, const std::string& path,
                                               LayerTypes& types) const {
  const std::string prefix = path.empty() ? "" : path + ".";
  if (auto it = object.find("layout"); it != object.end()) {
    auto value = choice(*it, prefix + "layout", kLayouts);
    if (!value) return Error{value.error()};
    types.channels_last = *value;
  }
  if (auto it = object.find("data_type"); it != object.end()) {
    auto value = choice(*it, prefix + "data_type", kDataTypes);
    if (!value) return Error{value.error()};
    types.data_type = *value;
  }
  if (auto it = object.find("compute_type"); it != object.end()) {
    auto value = choice(*it, prefix + "compute_type", kComputeTypes);
    if (!value) return Error{value.error()};
    types.compute_type = *value;
  }
  if (auto it = object.find("math_type"); it != object.end()) {
    auto value = choice(*it, prefix + "math_type", kMathTypes);
    if (!value) return Error{value.error()};
    types.math_type = *value;
  }
  if (auto it = object.find("mode"); it != object.end()) {
    auto value = choice(*it, prefix + "mode", kModes);
    if (!value) return Error{value.error()};
    types.mode = *value;
  }
  return std::nullopt;
}

Expected<NamedConvolution> NetworkReader::read_layer(const json& layer, const std::string& path,
                                                     const LayerTypes& defaults) const {
  if (!layer.is_object()) return error(path, describe(layer) + " is not an object");
  if (auto problem = unknown_fields(layer, path, kLayerFields)) return *problem;

  NamedConvolution result;
  auto name = layer.find("name");
  if (name == layer.end()) return error(path + ".name", "missing (a unique layer name)");
  if (!name->is_string() || name->get<std::string>().empty())
    return error(path + ".name", describe(*name) + " is not a non-empty string");
  result.name = name->get<std::string>();

  // The spatial rank: the filter's list length, else 2 (an integer filter).
  std::size_t rank = 2;
  if (auto it = layer.find("filter");
      it != layer.end() && it->is_array() && !it->empty() && it->size() <= 3)
    rank = it->size();
  std::string inner = spatial_letters(rank);
  for (char& ch : inner) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const std::string upper = "[C, " + inner + "] or [N, C, " + inner + "]";
  auto input = layer.find("input");
  if (input == layer.end()) return error(path + ".input", "missing (" + upper + ")");
  if (!input->is_array() || (input->size() != rank + 1 && input->size() != rank + 2))
    return error(path + ".input", describe(*input) + " is not a list " + upper);
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < input->size(); ++i) {
    auto value = integer((*input)[i], path + ".input[" + std::to_string(i) + "]", 1);
    if (!value) return Error{value.error()};
    dims.push_back(*value);
  }
  if (dims.size() == rank + 2) dims.erase(dims.begin());  // N: the caller's batch replaces it
  const std::int64_t channels = dims[0];
  const std::vector<std::int64_t> in_spatial(dims.begin() + 1, dims.end());

  auto outputs = layer.find("output_channels");
  if (outputs == layer.end()) return error(path + ".output_channels", "missing (an integer >= 1)");
  auto out_channels = integer(*outputs, path + ".output_channels", 1);
  if (!out_channels) return Error{out_channels.error()};

  auto filter = spatial(layer, "filter", path, 1, std::nullopt, rank);
  if (!filter) return Error{filter.error()};
  auto padding = spatial(layer, "padding", path, 0, 0, rank);
  if (!padding) return Error{padding.error()};
  auto stride = spatial(layer, "stride", path, 1, 1, rank);
  if (!stride) return Error{stride.error()};
  auto dilation = spatial(layer, "dilation", path, 1, 1, rank);
  if (!dilation) return Error{dilation.error()};

  if (auto it = layer.find("stream"); it != layer.end()) {
    auto value = integer(*it, path + ".stream", 0);
    if (!value) return Error{value.error()};
    result.stream = *value;
  }
  std::int64_t groups = 1;
  if (auto it = layer.find("groups"); it != layer.end()) {
    auto value = integer(*it, path + ".groups", 1);
    if (!value) return Error{value.error()};
    groups = *value;
  }
  if (channels % groups != 0)
    return error(path + ".groups", std::to_string(groups) +
                                       " does not divide the input channels (" +
                                       std::to_string(channels) + ")");
  if (*out_channels % groups != 0)
    return error(path + ".groups", std::to_string(groups) + " does not divide output_channels (" +
                                       std::to_string(*out_channels) + ")");

  LayerTypes types = defaults;
  if (auto problem = read_types(layer, path, types)) return *problem;

  std::vector<std::int64_t> out_spatial(rank), padded(rank);
  for (std::size_t i = 0; i < rank; ++i) padded[i] = in_spatial[i] + 2 * (*padding)[i];
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t extent = (*dilation)[i] * ((*filter)[i] - 1) + 1;
    if (extent > padded[i])
      return error(path + ".filter", list(*filter) + " with dilation " + list(*dilation) +
                                         " is larger than the padded input " + list(padded));
    out_spatial[i] = convolution_output_size(in_spatial[i], (*filter)[i], (*padding)[i],
                                             (*stride)[i], (*dilation)[i]);
  }

  // Every product below is of numbers <= 2^31, checked one factor at a time.
  auto image_elements = [](std::int64_t a, std::int64_t b, const std::vector<std::int64_t>& rest) {
    std::int64_t product = 1;
    std::vector<std::int64_t> factors = {a, b};
    factors.insert(factors.end(), rest.begin(), rest.end());
    for (auto f : factors) {
      if (product > kLargestImageElements / f) return kLargestImageElements + 1;
      product *= f;
    }
    return product;
  };
  const std::int64_t cg = channels / groups;
  // The output's size comes from several fields (output_channels, the input's size, padding,
  // stride, dilation): it is named with its shape, at the layer.
  std::vector<std::int64_t> output_shape = {*out_channels};
  output_shape.insert(output_shape.end(), out_spatial.begin(), out_spatial.end());
  for (auto [where, tensor, elements] : {std::tuple{path + ".input", std::string("the tensor"),
                                                    image_elements(1, channels, in_spatial)},
                                         std::tuple{path, "the output, " + list(output_shape) + ",",
                                                    image_elements(1, *out_channels, out_spatial)},
                                         std::tuple{path + ".filter", std::string("the tensor"),
                                                    image_elements(*out_channels, cg, *filter)}}) {
    if (elements > kLargestImageElements)
      return error(where, tensor + " has more than 2^40 elements per image");
    if (elements > kLargestBatchElements / batch_)
      return error(where,
                   tensor + " has more than 2^62 elements at batch " + std::to_string(batch_));
  }

  auto pack = [&](std::vector<std::int64_t> shape) {
    return types.channels_last ? TensorShape::packed_channels_last(std::move(shape))
                               : TensorShape::packed(std::move(shape));
  };
  ConvolutionProblem& p = result.problem;
  auto dims_of = [](std::int64_t a, std::int64_t b, const std::vector<std::int64_t>& rest) {
    std::vector<std::int64_t> dims = {a, b};
    dims.insert(dims.end(), rest.begin(), rest.end());
    return dims;
  };
  p.x = pack(dims_of(batch_, channels, in_spatial));
  p.w = pack(dims_of(*out_channels, cg, *filter));
  p.y = pack(dims_of(batch_, *out_channels, out_spatial));
  p.padding = *padding;
  p.stride = *stride;
  p.dilation = *dilation;
  p.groups = groups;
  p.mode = types.mode;
  p.data_type = types.data_type;
  p.compute_type = types.compute_type ? *types.compute_type
                   : (types.data_type == DataType::kHalf || types.data_type == DataType::kBFloat16)
                       ? DataType::kFloat
                       : types.data_type;
  p.math_type = types.math_type;
  // The checks above cover every rule; this one guards against the two drifting apart.
  if (auto problem = p.validation_error()) return error(path, *problem);
  return result;
}

Expected<Network> NetworkReader::read(const json& document, const std::string& default_name) {
  if (!document.is_object())
    return Error{source_ + ": " + describe(document) +
                 " is not a network (a JSON object with \"layers\")"};
  if (auto problem = unknown_fields(document, "", kTopFields)) return *problem;
  if (auto it = document.find("format"); it != document.end() && *it != kNetworkFormat)
    return error("format", describe(*it) + " is not \"" + kNetworkFormat + "\"");
  Network network;
  network.name = default_name;
  if (auto it = document.find("name"); it != document.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      return error("name", describe(*it) + " is not a non-empty string");
    network.name = it->get<std::string>();
  }
  for (const char* field : {"description", "comment"})
    if (auto it = document.find(field); it != document.end() && !it->is_string())
      return error(field, describe(*it) + " is not a string");
  LayerTypes defaults;
  if (auto problem = read_types(document, "", defaults)) return *problem;

  auto layers = document.find("layers");
  if (layers == document.end()) return error("layers", "missing (a list of convolution layers)");
  if (!layers->is_array() || layers->empty())
    return error("layers", describe(*layers) + " is not a non-empty list of layers");
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < layers->size(); ++i) {
    const std::string path = "layers[" + std::to_string(i) + "]";
    auto layer = read_layer((*layers)[i], path, defaults);
    if (!layer) return Error{layer.error()};
    auto [previous, inserted] = seen.emplace(layer->name, i);
    if (!inserted)
      return error(path + ".name", describe(json(layer->name)) + " is also the name of layers[" +
                                       std::to_string(previous->second) + "]");
    network.layers.push_back(std::move(*layer));
  }
  return network;
}

}  // namespace

Expected<Network> parse_network(std::string_view text, const std::string& source,
                                const std::string& default_name, std::int64_t batch) {
  if (batch < 1)
    return Error{source + ": the batch size " + std::to_string(batch) + " is not >= 1"};
  json document;
  try {
    document = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 7: ...": the part
    // after the bracket says where and what.
    std::string what = e.what();
    if (auto bracket = what.find("] "); bracket != std::string::npos) what.erase(0, bracket + 2);
    return Error{source + ": not valid JSON: " + what};
  }
  return NetworkReader(source, batch).read(document, default_name);
}

Expected<NetworkText> read_network_text(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    return Error{path + ": cannot read: it is a directory"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot read: " + std::strerror(errno)};
  const auto size = std::filesystem::file_size(path, error);
  if (!error && size > kLargestFileBytes)
    return Error{path + ": cannot read: larger than 64 MiB, not a network file"};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{path + ": cannot read: " + std::strerror(errno)};
  return NetworkText{text.str(), path, std::filesystem::path(path).stem().string()};
}

Expected<Network> read_network_file(const std::string& path, std::int64_t batch) {
  auto text = read_network_text(path);
  if (!text) return Error{text.error()};
  return parse_network(text->text, text->source, text->default_name, batch);
}

}  // namespace ucudnn
