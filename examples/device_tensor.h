#pragma once
// Device tensors of graph_conv: float, half or bfloat16 elements on the device, float on the
// host, converted with CUDA's own host conversions (cuda_fp16.h, cuda_bf16.h) as an
// application would.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "checked_calls.h"

namespace ucudnn::examples {

// A device tensor of `count` elements of `type` (float, half or bfloat16); the host side
// speaks float and converts with CUDA's own host conversions.
struct Buffer {
  void* data = nullptr;
  std::size_t count = 0;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;

  std::size_t element_bytes() const { return type == CUDNN_DATA_FLOAT ? 4 : 2; }
};

// Uninitialized (cudaMalloc's contents); no allocation for a count of 0.
inline Buffer allocate(std::size_t count, cudnnDataType_t type) {
  Buffer b{nullptr, count, type};
  if (count > 0) CHECK_CUDA(cudaMalloc(&b.data, count * b.element_bytes()));
  return b;
}

// Draws the buffer's values uniformly from [-1, 1) as floats, stored in its type.
inline void upload_random(const Buffer& b, std::mt19937& random) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<unsigned char> host(b.count * b.element_bytes());
  for (std::size_t i = 0; i < b.count; ++i) {
    const float v = value(random);
    if (b.type == CUDNN_DATA_HALF) {
      const auto bits = static_cast<__half_raw>(__float2half(v)).x;
      std::memcpy(&host[i * 2], &bits, 2);
    } else if (b.type == CUDNN_DATA_BFLOAT16) {
      const auto bits = static_cast<__nv_bfloat16_raw>(__float2bfloat16(v)).x;
      std::memcpy(&host[i * 2], &bits, 2);
    } else {
      std::memcpy(&host[i * 4], &v, 4);
    }
  }
  if (!host.empty())
    CHECK_CUDA(cudaMemcpy(b.data, host.data(), host.size(), cudaMemcpyHostToDevice));
}

inline Buffer device_buffer(std::size_t count, cudnnDataType_t type, std::mt19937& random) {
  Buffer b = allocate(count, type);
  upload_random(b, random);
  return b;
}

// The buffer's values, widened to float.
inline std::vector<float> host_copy(const Buffer& b) {
  std::vector<unsigned char> bytes(b.count * b.element_bytes());
  if (!bytes.empty())
    CHECK_CUDA(cudaMemcpy(bytes.data(), b.data, bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<float> host(b.count);
  for (std::size_t i = 0; i < b.count; ++i) {
    if (b.type == CUDNN_DATA_FLOAT) {
      std::memcpy(&host[i], &bytes[i * 4], 4);
      continue;
    }
    std::uint16_t bits;
    std::memcpy(&bits, &bytes[i * 2], 2);
    if (b.type == CUDNN_DATA_HALF) {
      __half_raw raw;
      raw.x = bits;
      host[i] = __half2float(__half(raw));
    } else {
      __nv_bfloat16_raw raw;
      raw.x = bits;
      host[i] = __bfloat162float(__nv_bfloat16(raw));
    }
  }
  return host;
}

}  // namespace ucudnn::examples
