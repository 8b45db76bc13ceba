#pragma once
// The cuDNN and CUDA doubles' trace (FAKECUDA_TRACE) read between two of its sizes, so that a
// test or a benchmark can count what a span of its own calls caused below the shim:
// convolutions and their batches, allocations and the memory they held, frees,
// synchronizations, captured work and calls CUDA forbids during capture.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace ucudnn::testing {

inline const char* trace_path() {
  return std::getenv("FAKECUDA_TRACE");
}
inline constexpr std::size_t kTraceEnd = std::numeric_limits<std::size_t>::max();

// The trace's size in bytes now: where the next line will start.
inline std::size_t trace_size(const char* path = trace_path()) {
  std::FILE* file = path ? std::fopen(path, "r") : nullptr;
  if (!file) return 0;
  std::fseek(file, 0, SEEK_END);
  const auto size = static_cast<std::size_t>(std::ftell(file));
  std::fclose(file);
  return size;
}

// The lines of the trace at `path` (default: this process's) that start in [from, to).
inline std::vector<std::string> trace_lines(std::size_t from, std::size_t to = kTraceEnd,
                                            const char* path = trace_path()) {
  std::vector<std::string> lines;
  std::FILE* file = path ? std::fopen(path, "r") : nullptr;
  if (!file) return lines;
  std::fseek(file, static_cast<long>(from), SEEK_SET);
  char line[1024];
  while (static_cast<std::size_t>(std::ftell(file)) < to && std::fgets(line, sizeof line, file))
    lines.emplace_back(line);
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

// What happened below the shim in a span of the trace.
struct TraceCounts {
  int convolutions = 0;
  int captured = 0;                                        // convolutions recorded into a graph
  int allocations = 0, failed_allocations = 0, frees = 0;  // device memory
  int host_allocations = 0, host_frees = 0;  // pinned host memory (cudaHostAlloc, cudaFreeHost)
  // Every synchronizing call, cudaFree and cudaFreeHost (device-wide ones) included.
  int synchronizations = 0;
  int capture_violations = 0;
  std::vector<unsigned long long> allocated_bytes;
  // Device memory allocated in the span and not freed in it: at its end, and at most.
  std::int64_t held_bytes = 0, peak_held_bytes = 0;
};

inline TraceCounts count_trace(std::size_t from, std::size_t to = kTraceEnd) {
  TraceCounts counts;
  for (const auto& line : trace_lines(from, to)) {
    unsigned long long bytes = 0;
    int ok = 0;
    if (line.rfind("conv ", 0) == 0) ++counts.convolutions;
    if (line.rfind("captured ", 0) == 0) ++counts.captured;
    if (line.rfind("free-host", 0) == 0) ++counts.host_frees, ++counts.synchronizations;
    if (line.rfind("free ", 0) == 0) {
      ++counts.frees, ++counts.synchronizations;
      if (std::sscanf(line.c_str(), "free bytes=%llu", &bytes) == 1)
        counts.held_bytes -= static_cast<std::int64_t>(bytes);
    }
    if (line.rfind("sync ", 0) == 0) ++counts.synchronizations;
    if (line.rfind("capture-violation ", 0) == 0) ++counts.capture_violations;
    if (std::sscanf(line.c_str(), "malloc-host bytes=%llu ok=%d", &bytes, &ok) == 2)
      ++counts.host_allocations;  // failed ones too, as failed_allocations for the device
    if (std::sscanf(line.c_str(), "malloc bytes=%llu ok=%d", &bytes, &ok) == 2) {
      (ok ? counts.allocations : counts.failed_allocations) += 1;
      if (!ok) continue;
      counts.allocated_bytes.push_back(bytes);
      counts.held_bytes += static_cast<std::int64_t>(bytes);
      counts.peak_held_bytes = std::max(counts.peak_held_bytes, counts.held_bytes);
    }
  }
  return counts;
}

}  // namespace ucudnn::testing
