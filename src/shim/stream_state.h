#pragma once
// The handle's stream and whether it is capturing a CUDA graph: read once per call, as every
// decision about what ucudnn may do (benchmark, allocate, synchronize, divide, involve the
// CPU) and where it orders its work comes from them.
#include <cudnn.h>

#include <optional>

namespace ucudnn::shim {

// nullopt when it cannot be read.
std::optional<cudaStream_t> stream_of(cudnnHandle_t handle);

// True when the stream is capturing, or when that cannot be told (the stream unknown
// included): then ucudnn must not benchmark, allocate, free, synchronize, re-divide or run
// host work either.
bool capturing(std::optional<cudaStream_t> stream);

}  // namespace ucudnn::shim
