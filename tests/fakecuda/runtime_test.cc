// The libcudart.so.13 double: tracked device memory under a capacity, the runtime's
// error reporting, the device it pretends to be, streams and events on virtual clocks, and
// work that runs in stream order only when the host waits for it.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fakecuda_hooks.h"

namespace {

TEST(FakeCudaRuntime, IsOneTestDevice) {
  int count = 0, device = -1;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_NE(std::string(prop.name).find("ucudnn fakecuda test double"), std::string::npos);
  EXPECT_EQ(prop.major, 9);
  EXPECT_EQ(prop.minor, 0);
  EXPECT_EQ(prop.multiProcessorCount, 132);
  size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  EXPECT_EQ(prop.totalGlobalMem, total);
  int version = 0;
  EXPECT_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  EXPECT_EQ(version, CUDART_VERSION);
  EXPECT_EQ(cudaDriverGetVersion(&version), cudaSuccess);
  EXPECT_GE(version, CUDART_VERSION);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_STREQ(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation");
}

TEST(FakeCudaRuntime, MemoryIsTrackedAndCopied) {
  size_t free_before = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1000), cudaSuccess);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u);
  size_t free_after = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  EXPECT_EQ(free_before - free_after, 1000u);

  EXPECT_EQ(fakecuda_find_allocation(p, 1000), 1);
  EXPECT_EQ(fakecuda_find_allocation(static_cast<char*>(p) + 999, 1), 1);
  EXPECT_EQ(fakecuda_find_allocation(static_cast<char*>(p) + 1, 1000), 0);
  EXPECT_EQ(fakecuda_find_allocation(static_cast<char*>(p) + 1000, 1), 0);
  int on_stack = 0;
  EXPECT_EQ(fakecuda_find_allocation(&on_stack, sizeof on_stack), 0);

  std::vector<unsigned char> in(1000), out(1000);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  ASSERT_EQ(cudaMemcpy(p, in.data(), in.size(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(out.data(), p, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(in, out);
  ASSERT_EQ(cudaMemsetAsync(p, 0, 500, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(out.data(), p, out.size(), cudaMemcpyDefault, nullptr), cudaSuccess);
  EXPECT_EQ(out[499], 0);
  EXPECT_EQ(out[500], in[500]);
  // The device side of a copy must lie in one allocation.
  EXPECT_EQ(cudaMemcpy(p, in.data(), 1001, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(in.data(), out.data(), 10, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(in.data(), 0, 10), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);

  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(fakecuda_find_allocation(p, 1), 0);
  EXPECT_EQ(cudaFree(p), cudaErrorInvalidValue);  // twice
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
  void* empty = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(cudaMalloc(&empty, 0), cudaSuccess);
  EXPECT_EQ(empty, nullptr);
  cudaGetLastError();
}

TEST(FakeCudaRuntime, OverCapacityFailsAndIsReportedOnce) {
  size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, total + 1), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // Capacity counts live allocations: with 1 MiB live, all that was free no longer fits.
  void* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, 1 << 20), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&p, free - (1 << 20) + 1), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  size_t free_after = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  EXPECT_EQ(free_after, free);
  cudaGetLastError();
}

TEST(FakeCudaRuntime, EventsMeasureTheVirtualClock) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t start, stop, untimed;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);  // unrecorded
  ASSERT_EQ(cudaEventRecord(start, stream), cudaSuccess);
  ASSERT_EQ(fakecuda_advance_stream(stream, 1.25), cudaSuccess);
  ASSERT_EQ(fakecuda_advance_stream(nullptr, 100), cudaSuccess);  // another clock
  ASSERT_EQ(fakecuda_advance_stream(stream, 0.5), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, stream), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  ASSERT_EQ(cudaEventQuery(stop), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_EQ(ms, 1.75f);
  ASSERT_EQ(cudaEventRecord(untimed, stream), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);

  // A stream waiting on an event later than its clock catches up to it.
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(other, stop, 0), cudaSuccess);
  double now = 0;
  ASSERT_EQ(fakecuda_stream_time(other, &now), cudaSuccess);
  EXPECT_EQ(now, 1.75);

  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
  EXPECT_EQ(fakecuda_advance_stream(stream, 1), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventDestroy(start), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(stop), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(untimed), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(untimed), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
}

TEST(FakeCudaRuntime, LastErrorIsPerThread) {
  ASSERT_EQ(cudaSetDevice(3), cudaErrorInvalidDevice);
  cudaError_t seen_elsewhere = cudaErrorUnknown;
  std::thread([&] { seen_elsewhere = cudaGetLastError(); }).join();
  EXPECT_EQ(seen_elsewhere, cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
}

TEST(FakeCudaRuntime, ManyThreadsAllocateAtOnce) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &failures] {
      cudaStream_t stream;
      if (cudaStreamCreate(&stream) != cudaSuccess) ++failures[t];
      for (int i = 0; i < 200; ++i) {
        void* p = nullptr;
        if (cudaMalloc(&p, 64 + i) != cudaSuccess || !fakecuda_find_allocation(p, 64 + i) ||
            fakecuda_advance_stream(stream, 1) != cudaSuccess || cudaFree(p) != cudaSuccess)
          ++failures[t];
      }
      double now = 0;
      if (fakecuda_stream_time(stream, &now) != cudaSuccess || now != 200) ++failures[t];
      cudaStreamDestroy(stream);
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

// Bytes of pinned host memory, filled with `fill`, freed at scope exit.
struct Pinned {
  explicit Pinned(std::size_t bytes, unsigned char fill = 0) : bytes(bytes) {
    EXPECT_EQ(cudaMallocHost(&p, bytes), cudaSuccess);
    std::memset(p, fill, bytes);
  }
  ~Pinned() { cudaFreeHost(p); }
  unsigned char at(std::size_t i) const { return static_cast<unsigned char*>(p)[i]; }
  void* p = nullptr;
  std::size_t bytes;
};

struct Device {
  explicit Device(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess); }
  ~Device() { cudaFree(p); }
  void* p = nullptr;
};

struct Stream {
  explicit Stream(unsigned int flags = cudaStreamDefault) {
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
  }
  ~Stream() { cudaStreamDestroy(s); }
  cudaStream_t s = nullptr;
};

TEST(FakeCudaStreamOrder, WorkRunsWhenTheHostWaitsForIt) {
  Device d(64);
  Pinned h(64, 1);
  Stream stream;
  ASSERT_EQ(cudaMemsetAsync(d.p, 7, 64, stream.s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(h.p, d.p, 64, cudaMemcpyDeviceToHost, stream.s), cudaSuccess);
  EXPECT_EQ(h.at(0), 1) << "read before synchronizing: the copy has not run";
  EXPECT_EQ(cudaStreamQuery(stream.s), cudaErrorNotReady);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "not ready is not an error";
  EXPECT_EQ(cudaStreamQuery(stream.s), cudaSuccess) << "polling gets there";
  EXPECT_EQ(h.at(0), 7);
  EXPECT_EQ(h.at(63), 7);

  ASSERT_EQ(cudaMemsetAsync(d.p, 9, 64, stream.s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(h.p, d.p, 64, cudaMemcpyDeviceToHost, stream.s), cudaSuccess);
  EXPECT_EQ(h.at(5), 7);
  ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
  EXPECT_EQ(h.at(5), 9);
}

TEST(FakeCudaStreamOrder, EventsOrderWorkAcrossStreams) {
  Device d(16);
  Pinned h(16);
  Stream producer, consumer;
  cudaEvent_t written;
  ASSERT_EQ(cudaEventCreateWithFlags(&written, cudaEventDisableTiming), cudaSuccess);

  // Without the event the consumer's copy runs ahead of the producer's memset.
  ASSERT_EQ(cudaMemsetAsync(d.p, 3, 16, producer.s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(h.p, d.p, 16, cudaMemcpyDeviceToHost, consumer.s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(consumer.s), cudaSuccess);
  EXPECT_EQ(h.at(0), 0xFF) << "the poison of fresh device memory";
  ASSERT_EQ(cudaStreamSynchronize(producer.s), cudaSuccess);

  ASSERT_EQ(cudaMemsetAsync(d.p, 4, 16, producer.s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(written, producer.s), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(written), cudaErrorNotReady);
  ASSERT_EQ(cudaMemsetAsync(d.p, 5, 16, producer.s), cudaSuccess);  // after the event
  ASSERT_EQ(cudaStreamWaitEvent(consumer.s, written, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(h.p, d.p, 16, cudaMemcpyDeviceToHost, consumer.s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(consumer.s), cudaSuccess);
  EXPECT_EQ(h.at(0), 4) << "the producer's work up to the event, and nothing after it";
  EXPECT_EQ(cudaEventQuery(written), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(written), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(producer.s), cudaErrorNotReady) << "the memset after the event";
  EXPECT_EQ(cudaEventDestroy(written), cudaSuccess);
}

TEST(FakeCudaStreamOrder, LegacyStreamWaitsForBlockingStreamsOnly) {
  Device d(8);
  std::vector<unsigned char> pageable(8, 0);
  Stream blocking, non_blocking(cudaStreamNonBlocking);
  ASSERT_EQ(cudaMemsetAsync(d.p, 2, 8, blocking.s), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(pageable.data(), d.p, 8, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(pageable[0], 2) << "cudaMemcpy is on the legacy stream";

  ASSERT_EQ(cudaMemsetAsync(d.p, 6, 8, non_blocking.s), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(pageable.data(), d.p, 8, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(pageable[0], 2) << "a non-blocking stream does not synchronize with it";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(pageable.data(), d.p, 8, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(pageable[0], 6);

  // Legacy-stream work is waited for by a blocking stream's later work.
  Pinned h(8);
  ASSERT_EQ(cudaMemset(d.p, 8, 8), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(h.p, d.p, 8, cudaMemcpyDeviceToHost, blocking.s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(blocking.s), cudaSuccess);
  EXPECT_EQ(h.at(0), 8);
}

TEST(FakeCudaStreamOrder, PageableCopiesFollowCudasRules) {
  Device d(4);
  Stream stream;
  ASSERT_EQ(cudaMemsetAsync(d.p, 1, 4, stream.s), cudaSuccess);
  std::vector<unsigned char> out(4, 0);
  ASSERT_EQ(cudaMemcpyAsync(out.data(), d.p, 4, cudaMemcpyDeviceToHost, stream.s), cudaSuccess);
  EXPECT_EQ(out[0], 1) << "into pageable memory the copy is synchronous";

  std::vector<unsigned char> in(4, 5);
  ASSERT_EQ(cudaMemcpyAsync(d.p, in.data(), 4, cudaMemcpyHostToDevice, stream.s), cudaSuccess);
  in.assign(4, 6);  // allowed: the pageable source was taken at the call
  ASSERT_EQ(cudaMemcpyAsync(out.data(), d.p, 4, cudaMemcpyDeviceToHost, stream.s), cudaSuccess);
  EXPECT_EQ(out[3], 5);
}

TEST(FakeCudaStreamOrder, HostFunctionsRunInOrderAndMayNotCallCuda) {
  Device d(4);
  Pinned h(4);
  Stream stream;
  struct Seen {
    const Pinned* h;
    unsigned char value = 0;
    cudaError_t call = cudaSuccess;
  } seen{&h};
  ASSERT_EQ(cudaMemsetAsync(d.p, 9, 4, stream.s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(h.p, d.p, 4, cudaMemcpyDeviceToHost, stream.s), cudaSuccess);
  const cudaHostFn_t look = [](void* context) {
    auto* seen = static_cast<Seen*>(context);
    seen->value = seen->h->at(0);
    seen->call = cudaStreamSynchronize(nullptr);
  };
  ASSERT_EQ(cudaLaunchHostFunc(stream.s, look, &seen), cudaSuccess);
  EXPECT_EQ(seen.value, 0) << "queued, not run";
  ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
  EXPECT_EQ(seen.value, 9) << "after the copy before it";
  EXPECT_EQ(seen.call, cudaErrorNotPermitted);
  cudaGetLastError();
}

TEST(FakeCudaStreamOrder, ElapsedTimeWaitsForBothEvents) {
  Stream stream;
  Device d(4);
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start, stream.s), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d.p, 0, 4, stream.s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, stream.s), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_EQ(ms, 0.0f);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

TEST(FakeCudaStreamOrder, TheQueueIsBoundedAsAGpus) {
  Device d(4);
  Pinned h(4);
  Stream stream;
  ASSERT_EQ(cudaMemsetAsync(d.p, 1, 4, stream.s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(h.p, d.p, 4, cudaMemcpyDeviceToHost, stream.s), cudaSuccess);
  for (int i = 0; i < 1100; ++i) ASSERT_EQ(cudaMemsetAsync(d.p, 2, 4, stream.s), cudaSuccess);
  EXPECT_EQ(h.at(0), 1) << "the oldest work ran to make room";
  ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
}

}  // namespace
