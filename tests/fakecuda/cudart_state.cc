// The CUDA runtime double's state and the rules its calls share (cudart_state.h).
#include "cudart_state.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fakecuda_hooks.h"
#include "trace.h"

namespace ucudnn::fakecuda::cudart {

namespace {

constexpr std::size_t kDefaultCapacity = std::size_t{4} << 30;
constexpr const char* kDeviceName = "ucudnn fakecuda test double";

std::size_t bytes_from_environment(const char* name, std::size_t otherwise) {
  const char* text = std::getenv(name);
  if (!text || !*text) return otherwise;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  return *end == '\0' ? static_cast<std::size_t>(value) : otherwise;
}

}  // namespace

Runtime::Runtime()
    : memory(bytes_from_environment("FAKECUDA_MEMORY_BYTES", kDefaultCapacity),
             fakecuda_compute_enabled(), bytes_from_environment("FAKECUDA_MEMORY_HELD_BYTES", 0)),
      pinned_host(std::size_t{1} << 40, fakecuda_compute_enabled()) {}

// Never destroyed: other libraries' destructors may still free memory at exit.
Runtime& runtime() {
  static Runtime* instance = new Runtime;
  return *instance;
}

thread_local cudaError_t last_error = cudaSuccess;
thread_local int current_device = 0;

int device_count() {
  static const int count = [] {
    const char* text = std::getenv("FAKECUDA_DEVICE_COUNT");
    const int value = text ? std::atoi(text) : 1;
    return value >= 1 && value <= 16 ? value : 1;
  }();
  return count;
}

// A function named in FAKECUDA_FAIL fails.
bool injected_failure(const char* function) {
  static const char* list = std::getenv("FAKECUDA_FAIL");
  if (!list) return false;
  const std::size_t length = std::strlen(function);
  for (const char* at = std::strstr(list, function); at; at = std::strstr(at + 1, function))
    if ((at == list || at[-1] == ',') && (at[length] == ',' || at[length] == '\0')) return true;
  return false;
}

bool valid_device(int device) {
  return device >= 0 && device < device_count();
}

// The device's entry of FAKECUDA_DEVICE_NAMES when it has one.
std::string device_name(int device) {
  const char* names = std::getenv("FAKECUDA_DEVICE_NAMES");
  std::string list = names ? names : "";
  for (int i = 0; i < device && !list.empty(); ++i) {
    const auto comma = list.find(',');
    list = comma == std::string::npos ? "" : list.substr(comma + 1);
  }
  const std::string name = list.substr(0, list.find(','));
  return name.empty() ? kDeviceName : name;
}

cudaError_t report(cudaError_t status) {
  if (status != cudaSuccess) last_error = status;
  return status;
}

bool valid_stream(cudaStream_t stream) {
  double ignored;
  return runtime().clocks.now(stream, &ignored) == cudaSuccess;
}

bool on_device(const void* p, std::size_t bytes) {
  return runtime().memory.contains(p, bytes);
}

// Host memory is anything else; the device side of a copy must be one allocation.
cudaError_t check_copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  switch (kind) {
    case cudaMemcpyHostToHost:
      return cudaSuccess;
    case cudaMemcpyHostToDevice:
      return on_device(dst, count) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToHost:
      return on_device(src, count) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToDevice:
      return on_device(dst, count) && on_device(src, count) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDefault:
      return cudaSuccess;
  }
  return cudaErrorInvalidMemcpyDirection;
}

cudaError_t copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (cudaError_t status = check_copy(dst, src, count, kind); status != cudaSuccess) return status;
  if (count) std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t set(void* p, int value, std::size_t count) {
  if (count == 0) return cudaSuccess;
  if (!on_device(p, count)) return cudaErrorInvalidValue;
  std::memset(p, value, count);
  return cudaSuccess;
}

bool pinned(const void* p, std::size_t bytes) {
  return runtime().pinned_host.contains(p, bytes);
}

// Work on `stream`: recorded into the graph when the stream captures (true), else its cost
// taken now and its memory effect queued in order.
bool issue(cudaStream_t stream, StreamCaptures::Work compute, StreamCaptures::Work account,
           ScratchRange scratch) {
  if (runtime().captures.capture(stream, {compute, account})) return true;
  if (account) account();
  if (!runtime().order.enqueue(stream, std::move(compute), scratch)) {
    trace_line("race scratch=%p bytes=%zu stream=%p", reinterpret_cast<void*>(scratch.begin),
               static_cast<std::size_t>(scratch.end - scratch.begin), static_cast<void*>(stream));
    std::fprintf(stderr,
                 "fakecuda: work on stream %p uses workspace [%p, +%zu bytes) that work on another "
                 "stream, not ordered before it, still uses: a race on a GPU\n",
                 static_cast<void*>(stream), reinterpret_cast<void*>(scratch.begin),
                 static_cast<std::size_t>(scratch.end - scratch.begin));
  }
  return false;
}

// An asynchronous copy is asynchronous only with pinned host memory: from pageable memory the
// source is taken at the call, and into it the call waits for the stream and copies (CUDA's
// rules for pageable transfers).
void copy_in_order(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                   cudaStream_t stream) {
  const bool to_host = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost ||
                       (kind == cudaMemcpyDefault && !on_device(dst, count));
  const bool from_host = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost ||
                         (kind == cudaMemcpyDefault && !on_device(src, count));
  if (to_host && !pinned(dst, count)) {
    runtime().order.finish_stream(stream);
    runtime().clocks.host_waits_for_stream(stream);
    copy(dst, src, count, kind);
  } else if (from_host && !pinned(src, count)) {
    auto taken = std::make_shared<std::vector<char>>(static_cast<const char*>(src),
                                                     static_cast<const char*>(src) + count);
    runtime().order.enqueue(stream, [=] { std::memmove(dst, taken->data(), count); });
  } else {
    runtime().order.enqueue(stream, [=] { copy(dst, src, count, kind); });
  }
}

}  // namespace ucudnn::fakecuda::cudart
