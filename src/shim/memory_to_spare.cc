#include "shim/memory_to_spare.h"

#include <algorithm>

#include "cudnn/cuda_runtime.h"
#include "cudnn/current_device.h"

namespace ucudnn::shim {

bool memory_to_spare(int device, std::uint64_t bytes) {
  const auto memory = cudnn::device_memory_info(cudnn::cuda_runtime(), device);
  if (!memory) return false;
  const std::uint64_t left = std::max<std::uint64_t>(kLeastMemoryLeftFree, memory->total / 16);
  return memory->free >= bytes && memory->free - bytes >= left;
}

}  // namespace ucudnn::shim
