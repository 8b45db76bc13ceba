// The network-file reader: the fields of each layer (network_fields.h reads each one) put
// together into a convolution, every rule between them checked with an error naming the field,
// the layer and the value; the document and its file.
#include "networks/network_file.h"

#include <array>
#include <cerrno>
#include <cmath>
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
#include "networks/network_fields.h"
#include "user_input/strict_json.h"

namespace ucudnn {

namespace {

using namespace network_fields;

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

// Reads one document; the first problem found is the error.
class NetworkReader : FieldReader {
 public:
  NetworkReader(const std::string& source, std::int64_t batch)
      : FieldReader(source), batch_(batch) {}

  Expected<Network> read(const json& document, const std::string& default_name);

 private:
  Expected<NamedConvolution> read_layer(const json& layer, const std::string& path,
                                        const LayerTypes& defaults) const;

  std::int64_t batch_;
  // Layers whose 4-number input was read as [N, C, H, W] with a one-number filter.
  mutable std::vector<std::string> batch_first_layers_;
};

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
  // [N, C, H, W] or a 3-d layer's [C, D, H, W] with its filter given as one number (which makes
  // the layer 2-d): read as the schema says, and noted.
  if (auto f = layer.find("filter");
      dims.size() == 4 && rank == 2 && f != layer.end() && f->is_number_integer())
    batch_first_layers_.push_back(result.name);
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
  // cuDNN's configurations: double data in double, float in float, half in half or float,
  // bfloat16 in float. Another pair would be benchmarked on the CPU and refused by cuDNN.
  const bool computable = p.compute_type == p.data_type ? p.data_type != DataType::kBFloat16
                                                        : p.compute_type == DataType::kFloat &&
                                                              (p.data_type == DataType::kHalf ||
                                                               p.data_type == DataType::kBFloat16);
  if (!computable)
    return error(path + ".compute_type",
                 file_name_of(p.compute_type) + " with data_type " + file_name_of(p.data_type) +
                     ": cuDNN computes double data in double, float in float, half in half or "
                     "float, bfloat16 in float");
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
  if (!batch_first_layers_.empty()) {
    std::string names;
    for (std::size_t i = 0; i < batch_first_layers_.size() && i < 5; ++i)
      names += (i ? ", " : "") + batch_first_layers_[i];
    if (batch_first_layers_.size() > 5)
      names += " and " + std::to_string(batch_first_layers_.size() - 5) + " more";
    network.notes.push_back(
        source_ + ": " + names + ": an input of 4 numbers with a one-number filter is read as " +
        "[N, C, H, W] of a 2-d layer, N replaced by the batch; a 3-d layer gives its filter as " +
        "a list ([3, 3, 3]), and a 2-d one can drop N to say so");
  }
  return network;
}

}  // namespace

Expected<Network> parse_network(std::string_view text, const std::string& source,
                                const std::string& default_name, std::int64_t batch) {
  if (batch < 1)
    return Error{source + ": the batch size " + std::to_string(batch) + " is not >= 1"};
  json document;
  std::optional<std::string> duplicate;
  try {
    document = parse_json_keeping_every_key(text, duplicate, /*allow_exceptions=*/true);
  } catch (const json::exception& e) {
    return Error{source + ": not valid JSON: " + parse_error_text(e)};
  }
  if (duplicate) return Error{source + ": " + written_twice(*duplicate)};
  return NetworkReader(source, batch).read(document, default_name);
}

Expected<Network> parse_network(const NetworkText& text, std::int64_t batch) {
  auto network = parse_network(text.text, text.source, text.default_name, batch);
  if (network) {
    auto& notes = network.value().notes;
    notes.insert(notes.begin(), text.notes.begin(), text.notes.end());
  }
  return network;
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
  return NetworkText{text.str(), path, std::filesystem::path(path).stem().string(), {}};
}

Expected<Network> read_network_file(const std::string& path, std::int64_t batch) {
  auto text = read_network_text(path);
  if (!text) return Error{text.error()};
  return parse_network(text->text, text->source, text->default_name, batch);
}

}  // namespace ucudnn
