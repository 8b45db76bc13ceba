#include "shim/host_time_account.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>

#include "core/latency_histogram.h"
#include "cudnn/real_call_clock.h"
#include "shim/log.h"
#include "shim/process_exit.h"
#include "shim/settings.h"

namespace ucudnn::shim {

namespace {

constexpr const char* kNames[] = {
#define UCUDNN_ENTRY_POINT_NAME(name) #name,
    UCUDNN_INTERPOSED_FUNCTIONS(UCUDNN_ENTRY_POINT_NAME)
#undef UCUDNN_ENTRY_POINT_NAME
};

struct EntryHistograms {
  LatencyHistogram whole, real, own;
};

// One thread's account. Its owner makes each entry point's histograms on first use; readers
// see them through the atomic pointers.
struct ThreadAccount {
  std::array<std::atomic<EntryHistograms*>, kEntryPoints> entries{};
  std::atomic<bool> in_use{true};
};

void log_account();

// Every thread account ever made, never destroyed (a thread may end, and the application may
// call cuDNN from its static destructors); an ended thread's account goes to the next new one.
class Accounts {
 public:
  static Accounts& instance() {
    static auto& accounts = *new Accounts;
    return accounts;
  }
  ThreadAccount* acquire() {
    std::lock_guard lock(mutex_);
    for (ThreadAccount* account : all_)
      if (!account->in_use.load(std::memory_order_acquire)) {
        account->in_use.store(true, std::memory_order_relaxed);
        return account;
      }
    if (all_.empty()) at_exit_of_this_process(log_account);
    all_.push_back(new ThreadAccount);
    return all_.back();
  }
  template <typename Visit>
  void each(Visit visit) {
    std::lock_guard lock(mutex_);
    for (const ThreadAccount* account : all_) visit(*account);
  }

 private:
  std::mutex mutex_;
  std::vector<ThreadAccount*> all_;
};

struct ThreadState {
  ThreadAccount* account = nullptr;
  int depth = 0;
  ~ThreadState() {
    if (account) account->in_use.store(false, std::memory_order_release);
  }
};
thread_local ThreadState thread_state;

double microseconds(double nanoseconds) {
  return nanoseconds / 1000.0;
}

void log_account() {
  const auto summary = host_time_summary();
  if (summary.empty()) return;
  // Disabled, ucudnn passes every call through: the table is what passing through costs.
  log(LogLevel::kInfo, process_settings().disabled
                           ? "ucudnn is disabled (UCUDNN_DISABLE): every call passed through to "
                             "cuDNN; its host time per call, by interposed function:"
                           : "ucudnn's host time per call, by interposed function:");
  for (const auto& line : summary) log(LogLevel::kInfo, "  " + to_string(line));
}

}  // namespace

const char* entry_point_name(EntryPoint entry) {
  return kNames[static_cast<int>(entry)];
}

bool host_time_account_on() {
  return process_settings().log_level >= LogLevel::kInfo;
}

void EntryScope::begin(EntryPoint entry) {
  counted_ = true;
  if (thread_state.depth++ > 0) return;
  outermost_ = true;
  entry_ = entry;
  cudnn::RealCallClock::start_counting();
  start_ = cudnn::RealCallClock::now();
}

void EntryScope::end() {
  --thread_state.depth;
  if (!outermost_) return;
  const std::uint64_t whole = cudnn::RealCallClock::now() - start_;
  const std::uint64_t real = cudnn::RealCallClock::stop_counting();
  try {
    if (!thread_state.account) thread_state.account = Accounts::instance().acquire();
    auto& slot = thread_state.account->entries[static_cast<std::size_t>(entry_)];
    EntryHistograms* histograms = slot.load(std::memory_order_relaxed);
    if (!histograms) {
      histograms = new EntryHistograms;  // once per thread account and entry point
      slot.store(histograms, std::memory_order_release);
    }
    histograms->whole.record(whole);
    histograms->real.record(real);
    histograms->own.record(whole > real ? whole - real : 0);
  } catch (const std::exception&) {
    // No memory for the account: this call goes uncounted.
  }
}

std::vector<HostTimeSummary> host_time_summary() {
  std::vector<HostTimeSummary> summary;
  auto merged = std::make_unique<std::array<EntryHistograms, kEntryPoints>>();
  Accounts::instance().each([&](const ThreadAccount& account) {
    for (int e = 0; e < kEntryPoints; ++e)
      if (const EntryHistograms* h =
              account.entries[static_cast<std::size_t>(e)].load(std::memory_order_acquire)) {
        auto& into = (*merged)[static_cast<std::size_t>(e)];
        into.whole.add(h->whole);
        into.real.add(h->real);
        into.own.add(h->own);
      }
  });
  for (int e = 0; e < kEntryPoints; ++e) {
    const auto& h = (*merged)[static_cast<std::size_t>(e)];
    HostTimeSummary line{static_cast<EntryPoint>(e)};
    line.calls = h.whole.count();
    if (line.calls == 0) continue;
    line.median_us = microseconds(h.whole.quantile(0.5));
    line.p99_us = microseconds(h.whole.quantile(0.99));
    line.real_median_us = microseconds(h.real.quantile(0.5));
    line.real_p99_us = microseconds(h.real.quantile(0.99));
    line.own_median_us = microseconds(h.own.quantile(0.5));
    line.own_p99_us = microseconds(h.own.quantile(0.99));
    summary.push_back(line);
  }
  return summary;
}

std::string to_string(const HostTimeSummary& s) {
  char text[256];
  std::snprintf(text, sizeof text,
                "%s: %llu call%s, us median/p99: whole %.1f/%.1f, in cuDNN and CUDA %.1f/%.1f, "
                "ucudnn's own %.1f/%.1f",
                entry_point_name(s.entry), static_cast<unsigned long long>(s.calls),
                s.calls == 1 ? "" : "s", s.median_us, s.p99_us, s.real_median_us, s.real_p99_us,
                s.own_median_us, s.own_p99_us);
  return text;
}

cudnnStatus_t host_time_account(UcudnnHostTime* entries, int capacity, int* count) {
  if (!count || capacity < 0 || (!entries && capacity > 0)) return CUDNN_STATUS_BAD_PARAM;
  try {
    const auto summary = host_time_summary();
    *count = static_cast<int>(summary.size());
    for (std::size_t i = 0; i < summary.size() && i < static_cast<std::size_t>(capacity); ++i) {
      const auto& s = summary[i];
      entries[i] =
          UcudnnHostTime{entry_point_name(s.entry), s.calls,       s.median_us,     s.p99_us,
                         s.real_median_us,          s.real_p99_us, s.own_median_us, s.own_p99_us};
    }
    return CUDNN_STATUS_SUCCESS;
  } catch (const std::exception&) {
    return CUDNN_STATUS_ALLOC_FAILED;
  }
}

}  // namespace ucudnn::shim
