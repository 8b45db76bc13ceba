#pragma once
// The kernels of a network: Forward, BackwardData and BackwardFilter of every layer, in
// file order. Identical kernels (repeated layers of the same shape) are one kernel to the
// cuDNN shim, so the WD plan lists each distinct kernel once, weighted by its uses.
#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel_key.h"
#include "networks/network.h"

namespace ucudnn::cli {

struct NetworkKernel {
  std::string layer;
  KernelKey key;
  std::int64_t stream = 0;    // the layer's stream
  std::string label() const;  // "conv2 BackwardData"
};

std::vector<NetworkKernel> network_kernels(const Network& network);

struct DistinctKernel {
  std::size_t first = 0;          // index of its first use in the kernel list
  std::vector<std::size_t> uses;  // every index, ascending
};
// In order of first use.
std::vector<DistinctKernel> distinct_kernels(const std::vector<NetworkKernel>& kernels);

// Multiply-adds of one image, for progress estimates: 2 N K P Q (C/groups) R S / N.
double flops_per_image(const KernelKey& key);

}  // namespace ucudnn::cli
