#pragma once
// What the shim's application-like tests share: device buffers filled and read back through
// cudaMemcpy as an application would, a normwise comparison, and the doubles' trace
// (FAKECUDA_TRACE, set by CTest) read from an offset, so that a test can count what a span of
// its own calls caused below the shim: convolutions, allocations, frees, synchronizations,
// captured work and calls CUDA forbids during capture. And the doubles' own functions, reached
// past the shim, to compare the shim's answers with.
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

inline std::size_t trace_size() {
  const char* path = std::getenv("FAKECUDA_TRACE");
  std::FILE* file = path ? std::fopen(path, "r") : nullptr;
  if (!file) return 0;
  std::fseek(file, 0, SEEK_END);
  const auto size = static_cast<std::size_t>(std::ftell(file));
  std::fclose(file);
  return size;
}

// The lines of the trace at `path` (default: this process's) since `from` bytes into it.
inline std::vector<std::string> trace_lines(std::size_t from,
                                            const char* path = std::getenv("FAKECUDA_TRACE")) {
  std::vector<std::string> lines;
  std::FILE* file = path ? std::fopen(path, "r") : nullptr;
  if (!file) return lines;
  std::fseek(file, static_cast<long>(from), SEEK_SET);
  char line[1024];
  while (std::fgets(line, sizeof line, file)) lines.emplace_back(line);
  std::fclose(file);
  return lines;
}

// The batch sizes of the convolutions run since `from`.
inline std::vector<long long> traced_batches(std::size_t from) {
  std::vector<long long> batches;
  for (const auto& line : trace_lines(from)) {
    const char* n = std::strstr(line.c_str(), " n=");
    long long value = 0;
    if (line.rfind("conv ", 0) == 0 && n && std::sscanf(n, " n=%lld", &value) == 1)
      batches.push_back(value);
  }
  return batches;
}

// What happened below the shim since `from`.
struct TraceCounts {
  int convolutions = 0;
  int captured = 0;  // convolutions recorded into a graph
  int allocations = 0, failed_allocations = 0, frees = 0;
  int synchronizations = 0;  // every synchronizing call, cudaFree (a device-wide one) included
  int capture_violations = 0;
  std::vector<unsigned long long> allocated_bytes;
};

inline TraceCounts count_trace(std::size_t from) {
  TraceCounts counts;
  for (const auto& line : trace_lines(from)) {
    unsigned long long bytes = 0;
    int ok = 0;
    if (line.rfind("conv ", 0) == 0) ++counts.convolutions;
    if (line.rfind("captured ", 0) == 0) ++counts.captured;
    if (line.rfind("free", 0) == 0) ++counts.frees, ++counts.synchronizations;
    if (line.rfind("sync ", 0) == 0) ++counts.synchronizations;
    if (line.rfind("capture-violation ", 0) == 0) ++counts.capture_violations;
    if (std::sscanf(line.c_str(), "malloc bytes=%llu ok=%d", &bytes, &ok) == 2) {
      (ok ? counts.allocations : counts.failed_allocations) += 1;
      if (ok) counts.allocated_bytes.push_back(bytes);
    }
  }
  return counts;
}

}  // namespace ucudnn::testing
