#pragma once
// The JSON text of the built-in networks (examples/networks/*.json), compiled into the
// library by embed_networks.cmake, so that an installed binary needs no source tree.
#include <span>

namespace ucudnn {

struct EmbeddedNetwork {
  const char* name;  // the file name without .json
  const char* text;
};

// In file name order.
std::span<const EmbeddedNetwork> embedded_networks();

}  // namespace ucudnn
