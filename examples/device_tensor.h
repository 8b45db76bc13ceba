#pragma once
// Device tensors of graph_conv: float, half or bfloat16 elements on the device, float on the
// host, converted with CUDA's own host conversions (cuda_fp16.h, cuda_bf16.h) as an
// application would.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

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

inline Buffer device_buffer(std::size_t count, cudnnDataType_t type, std::mt19937& random) {
  Buffer b{nullptr, count, type};
  CHECK_CUDA(cudaMalloc(&b.data, count * b.element_bytes()));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<unsigned char> host(count * b.element_bytes());
  for (std::size_t i = 0; i < count; ++i) {
    const float v = value(random);
    if (type == CUDNN_DATA_HALF) {
      const __half h = __float2half(v);
      std::memcpy(&host[i * 2], &h, 2);
    } else if (type == CUDNN_DATA_BFLOAT16) {
      const __nv_bfloat16 h = __float2bfloat16(v);
      std::memcpy(&host[i * 2], &h, 2);
    } else {
      std::memcpy(&host[i * 4], &v, 4);
    }
  }
  CHECK_CUDA(cudaMemcpy(b.data, host.data(), host.size(), cudaMemcpyHostToDevice));
  return b;
}

inline std::vector<float> host_copy(const Buffer& b) {
  std::vector<unsigned char> bytes(b.count * b.element_bytes());
  CHECK_CUDA(cudaMemcpy(bytes.data(), b.data, bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<float> host(b.count);
  for (std::size_t i = 0; i < b.count; ++i) {
    if (b.type == CUDNN_DATA_HALF) {
      __half h;
      std::memcpy(&h, &bytes[i * 2], 2);
      host[i] = __half2float(h);
    } else if (b.type == CUDNN_DATA_BFLOAT16) {
      __nv_bfloat16 h;
      std::memcpy(&h, &bytes[i * 2], 2);
      host[i] = __bfloat162float(h);
    } else {
      std::memcpy(&host[i], &bytes[i * 4], 4);
    }
  }
  return host;
}

}  // namespace ucudnn::examples
