/* A C program (not C++) that reads ucudnn's accounts through its public C headers, linked with
 * libucudnn: the headers that README points C users to must compile as C. Prints what it read. */
#include <stdio.h>
#include <ucudnn/host_time_account.h>
#include <ucudnn/runtime_call_counts.h>

int main(void) {
  UcudnnRuntimeCallCounts measuring, other;
  int count = -1;
  if (ucudnnGetRuntimeCallCounts(&measuring, &other) != CUDNN_STATUS_SUCCESS) return 1;
  if (ucudnnGetHostTimeAccount(NULL, 0, &count) != CUDNN_STATUS_SUCCESS) return 1;
  printf("allocations %llu, functions counted %d\n", measuring.allocations + other.allocations,
         count);
  return 0;
}
