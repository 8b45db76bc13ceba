#pragma once
// What ucudnn's own CUDA runtime calls have cost the process so far, exported by both
// libucudnn.so and libucudnn_preload.so (find it with dlsym(RTLD_DEFAULT, ...) under
// LD_PRELOAD); a C and C++ header. Apart for measuring (benchmarks, the host-device link probe)
// and everything else (running plans, a WD arena, CPU/GPU staging buffers): once planning is
// done, "other" should grow no more. cudaMalloc and cudaHostAlloc count as allocations; cudaFree
// and cudaFreeHost as frees and as synchronizations (they wait for the device);
// cudaStreamSynchronize and cudaEventSynchronize as synchronizations. With
// UCUDNN_LOG_LEVEL=info the shim logs the same at exit.
#include <cudnn.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct UcudnnRuntimeCallCounts {
  unsigned long long allocations;
  unsigned long long frees;
  unsigned long long synchronizations;
} UcudnnRuntimeCallCounts;

// BAD_PARAM when either pointer is null.
cudnnStatus_t ucudnnGetRuntimeCallCounts(UcudnnRuntimeCallCounts* measuring,
                                         UcudnnRuntimeCallCounts* other);
#ifdef __cplusplus
}
#endif
