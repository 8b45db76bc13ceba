#pragma once
// The shim's host-time account (include/ucudnn/host_time_account.h): every interposed
// function's front end opens an EntryScope, which times the call and the part of it spent in
// the real libraries (cudnn/real_call_clock.h), into histograms of the calling thread. No
// lock and no allocation per call: each thread writes its own account, made on its first
// counted call and handed to a later thread when it ends; readers merge them at any time.
// Off (one flag read) unless UCUDNN_LOG_LEVEL is info or debug.
#include <cstdint>
#include <string>
#include <vector>

#include "shim/interposed_functions.h"
#include "ucudnn/host_time_account.h"

namespace ucudnn::shim {

enum class EntryPoint : int {
#define UCUDNN_ENTRY_POINT(name) name,
  UCUDNN_INTERPOSED_FUNCTIONS(UCUDNN_ENTRY_POINT)
#undef UCUDNN_ENTRY_POINT
};
inline constexpr int kEntryPoints = 0
#define UCUDNN_COUNT_ENTRY_POINT(name) +1
    UCUDNN_INTERPOSED_FUNCTIONS(UCUDNN_COUNT_ENTRY_POINT)
#undef UCUDNN_COUNT_ENTRY_POINT
    ;

const char* entry_point_name(EntryPoint entry);

bool host_time_account_on();

class EntryScope {
 public:
  explicit EntryScope(EntryPoint entry) {
    if (host_time_account_on()) begin(entry);
  }
  ~EntryScope() {
    if (counted_) end();
  }
  EntryScope(const EntryScope&) = delete;
  EntryScope& operator=(const EntryScope&) = delete;

 private:
  void begin(EntryPoint entry);
  void end();
  EntryPoint entry_{};
  bool counted_ = false;    // this scope changed the thread's depth
  bool outermost_ = false;  // and times the call
  std::uint64_t start_ = 0;
};

struct HostTimeSummary {
  EntryPoint entry;
  std::uint64_t calls = 0;
  double median_us = 0, p99_us = 0;
  double real_median_us = 0, real_p99_us = 0;
  double own_median_us = 0, own_p99_us = 0;
};

// Every entry point called while counting, merged over threads.
std::vector<HostTimeSummary> host_time_summary();

// "cudnnBackendExecute: 4800 calls, µs median/p99: whole 12.1/40.2, in cuDNN and CUDA
// 10.0/38.0, ucudnn's own 2.1/3.4"
std::string to_string(const HostTimeSummary& summary);

// ucudnnGetHostTimeAccount (include/ucudnn/host_time_account.h).
cudnnStatus_t host_time_account(UcudnnHostTime* entries, int capacity, int* count);

}  // namespace ucudnn::shim
