// The networks built into the tool (network.h): names resolved, embedded texts read.
#include <sys/stat.h>
#include <cctype>
#include <stdexcept>

#include "networks/embedded_networks.h"
#include "networks/network.h"
#include "networks/network_file.h"

namespace ucudnn {

namespace {

// "ResNet-50" and "resnet_50" name resnet50.
std::string normalized(std::string_view name) {
  std::string text;
  for (char c : name)
    if (c != '-' && c != '_')
      text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

const EmbeddedNetwork* find_embedded(std::string_view name) {
  const std::string wanted = normalized(name);
  for (const auto& network : embedded_networks())
    if (normalized(network.name) == wanted) return &network;
  return nullptr;
}

std::vector<NamedConvolution> builtin_layers(const char* name, std::int64_t batch) {
  auto network = builtin_network(name, batch);
  if (!network) throw std::logic_error(std::string("the built-in network ") + name + " is missing");
  return std::move(network->layers);
}

}  // namespace

std::vector<std::string> builtin_network_names() {
  std::vector<std::string> names;
  for (const auto& network : embedded_networks()) names.emplace_back(network.name);
  return names;
}

std::optional<std::string_view> builtin_network_text(std::string_view name) {
  if (const EmbeddedNetwork* network = find_embedded(name)) return network->text;
  return std::nullopt;
}

std::optional<Network> builtin_network(std::string_view name, std::int64_t batch) {
  const EmbeddedNetwork* embedded = find_embedded(name);
  if (!embedded) return std::nullopt;
  auto network = parse_network(embedded->text, std::string(embedded->name) + " (built-in)",
                               embedded->name, batch);
  // The embedded files are tested; only a bad batch size can fail here.
  if (!network) throw std::invalid_argument(network.error());
  return std::move(*network);
}

Expected<NetworkText> network_text(std::string_view name_or_path) {
  const std::string path(name_or_path);
  struct stat status {};
  const bool exists = ::stat(path.c_str(), &status) == 0;
  if (const EmbeddedNetwork* embedded = find_embedded(name_or_path)) {
    NetworkText text{
        embedded->text, std::string(embedded->name) + " (built-in)", embedded->name, {}};
    if (exists)
      text.notes.push_back("'" + path + "' names the built-in network " +
                           std::string(embedded->name) + ", which is taken; for the file of that " +
                           "name, write ./" + path);
    return text;
  }
  const bool looks_like_path =
      path.find('/') != std::string::npos || (path.size() > 5 && path.ends_with(".json"));
  std::string error;
  if (exists || looks_like_path) {
    auto read = read_network_text(path);
    if (read || exists) return read;
    error = read.error();
  } else {
    std::string names;
    for (const auto& name : builtin_network_names()) names += (names.empty() ? "" : ", ") + name;
    error = "'" + path + "' is not a built-in network (" + names + ") nor a network file";
  }
  // A file named without its extension, as a built-in network is named.
  if (::stat((path + ".json").c_str(), &status) == 0) error += "; did you mean " + path + ".json?";
  return Error{error};
}

Expected<Network> load_network(std::string_view name_or_path, std::int64_t batch) {
  auto text = network_text(name_or_path);
  if (!text) return Error{text.error()};
  return parse_network(*text, batch);
}

std::vector<NamedConvolution> resnet50_convolutions(std::int64_t batch) {
  return builtin_layers("resnet50", batch);
}

std::vector<NamedConvolution> alexnet_convolutions(std::int64_t batch) {
  return builtin_layers("alexnet", batch);
}

}  // namespace ucudnn
