#include "device_fault.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace ucudnn::fakecuda {

namespace {

long long crash_at() {
  const char* text = std::getenv("FAKECUDA_CRASH_AT");
  if (!text || !*text) return 0;
  char* end = nullptr;
  const long long at = std::strtoll(text, &end, 10);
  if (*end != '\0' || at < 1) {
    std::fprintf(stderr, "fakecuda: FAKECUDA_CRASH_AT=%s is not a call number >= 1\n", text);
    return 0;
  }
  return at;
}

}  // namespace

void count_toward_device_fault() {
  static const long long at = crash_at();
  static std::atomic<long long> calls{0};
  if (at == 0 || ++calls != at) return;
  std::fprintf(stderr, "fakecuda: FAKECUDA_CRASH_AT=%lld: process %d ends at this call\n", at,
               static_cast<int>(::getpid()));
  std::fflush(stderr);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ::kill(::getpid(), SIGKILL);
}

}  // namespace ucudnn::fakecuda
