#pragma once
// A device fault that ends the process midway, on request, so that what a job keeps of the work
// done before it can be tested (a cluster's rank lost while the others go on).
// FAKECUDA_CRASH_AT=N: the N-th convolution call of the process (a legacy cudnnConvolution* or a
// cudnnBackendExecute) says so on stderr, waits a second, and kills the process with SIGKILL, as
// the kernel does a process a GPU fault left unusable. The wait lets the job take what the
// process sent before: a test of what the job keeps must not be a race with it. Unset: nothing.
// Read once per process.
namespace ucudnn::fakecuda {

// Counts one convolution call toward FAKECUDA_CRASH_AT.
void count_toward_device_fault();

}  // namespace ucudnn::fakecuda
