#include "shim/memory_to_spare.h"

#include <algorithm>
#include <cstddef>

#include "cudnn/cuda_runtime.h"
#include "cudnn/current_device.h"

namespace ucudnn::shim {

bool memory_to_spare(int device, std::uint64_t bytes) {
  const auto& runtime = cudnn::cuda_runtime();
  std::size_t free = 0, total = 0;
  {
    // cudaMemGetInfo answers for the current device only.
    const cudnn::CurrentDevice on(runtime, device);
    if (!on.ok() || runtime.cudaMemGetInfo(&free, &total) != cudaSuccess) {
      runtime.cudaGetLastError();
      return false;
    }
  }
  const std::uint64_t left = std::max<std::uint64_t>(kLeastMemoryLeftFree, total / 16);
  return free >= bytes && free - bytes >= left;
}

}  // namespace ucudnn::shim
