#include "network_kernels.h"

#include <unordered_map>

namespace ucudnn::cli {

std::string NetworkKernel::label() const {
  return layer + " " + std::string(name_of(key.operation));
}

std::vector<NetworkKernel> network_kernels(const Network& network) {
  std::vector<NetworkKernel> kernels;
  for (const auto& layer : network.layers)
    for (auto op : {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter})
      kernels.push_back({layer.name, KernelKey{op, layer.problem}, layer.stream});
  return kernels;
}

std::vector<DistinctKernel> distinct_kernels(const std::vector<NetworkKernel>& kernels) {
  std::vector<DistinctKernel> distinct;
  std::unordered_map<KernelKey, std::size_t, KernelKeyHash> index;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    auto [it, inserted] = index.emplace(kernels[i].key, distinct.size());
    if (inserted) distinct.push_back({i, {}});
    distinct[it->second].uses.push_back(i);
  }
  return distinct;
}

double flops_per_image(const KernelKey& key) {
  const auto& p = key.problem;
  double flops = 2.0 * static_cast<double>(p.w.dims[0]) * static_cast<double>(p.w.dims[1]);
  for (std::size_t i = 2; i < p.w.dims.size(); ++i)
    flops *= static_cast<double>(p.w.dims[i]) * static_cast<double>(p.y.dims[i]);
  return flops;
}

}  // namespace ucudnn::cli
