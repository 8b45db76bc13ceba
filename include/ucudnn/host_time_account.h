#pragma once
// The host time ucudnn adds to each cuDNN function it interposes, exported by both
// libucudnn.so and libucudnn_preload.so (find it with dlsym(RTLD_DEFAULT, ...) under
// LD_PRELOAD); a C and C++ header. Counted only while UCUDNN_LOG_LEVEL is info or debug (the
// shim then also logs it at exit, beside its CUDA call counts); below info nothing is timed. Per
// function: how many calls, and the median and 99th percentile of the whole call, of the time spent
// inside the real cuDNN and CUDA runtime functions the shim called for it, and of the rest:
// ucudnn's own work. Percentiles are read from a histogram with 16 buckets per power of two (within
// about 3%). A call made from inside another interposed call counts with the outer one.
#include <cudnn.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct UcudnnHostTime {
  const char* function;  // the interposed function's name (static storage)
  unsigned long long calls;
  double median_us, p99_us;            // the whole call
  double real_median_us, real_p99_us;  // inside the real cuDNN and CUDA runtime
  double own_median_us, own_p99_us;    // ucudnn's own work: the whole call less the above
} UcudnnHostTime;

// Writes up to `capacity` entries, one per function called at least once while counting, in
// the order of the interposed function list, and sets *count to how many there are (call with
// capacity 0 to size the array). BAD_PARAM when count is null, or entries is null with a
// capacity above 0.
cudnnStatus_t ucudnnGetHostTimeAccount(UcudnnHostTime* entries, int capacity, int* count);
#ifdef __cplusplus
}
#endif
