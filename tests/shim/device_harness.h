#pragma once
// What the shim's application-like tests share: device buffers filled and read back through
// cudaMemcpy as an application would, a normwise comparison, the doubles' trace
// (FAKECUDA_TRACE, set by CTest; support/fakecuda_trace.h), and the doubles' own functions,
// reached past the shim, to compare the shim's answers with.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/fakecuda_trace.h"
#include "support/relative_error.h"

namespace ucudnn::testing {

// The loaded libcudnn's own `name` (the double, or the real library on a GPU), not the shim's.
template <typename Function>
Function* real(const char* name) {
  static void* library = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
  return reinterpret_cast<Function*>(library ? dlsym(library, name) : nullptr);
}

// Device buffers of floats that a test frees at its end.
class DeviceBuffers {
 public:
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (void* p : buffers_) cudaFree(p);
  }
  void* allocate(std::size_t floats) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, floats * sizeof(float)), cudaSuccess);
    buffers_.push_back(p);
    return p;
  }

 private:
  std::vector<void*> buffers_;
};

inline void fill(void* device, std::size_t floats, std::mt19937_64& random) {
  std::vector<float> host(floats);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (auto& v : host) v = uniform(random);
  ASSERT_EQ(cudaMemcpy(device, host.data(), floats * sizeof(float), cudaMemcpyHostToDevice),
            cudaSuccess);
}

inline std::vector<float> read(const void* device, std::size_t floats) {
  std::vector<float> host(floats);
  EXPECT_EQ(cudaMemcpy(host.data(), device, floats * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return host;
}

}  // namespace ucudnn::testing
