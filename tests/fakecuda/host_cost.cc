#include "host_cost.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "fakecuda_hooks.h"

namespace ucudnn::fakecuda {

namespace {

struct Costs {
  double legacy_us = 0, execute_us = 0, compile_us = 0;
};

Costs read_costs() {
  Costs costs;
  const char* text = std::getenv("FAKECUDA_HOST_COST_US");
  if (!text) return costs;
  std::istringstream entries(text);
  std::string entry;
  while (std::getline(entries, entry, ',')) {
    const auto equals = entry.find('=');
    const std::string key = entry.substr(0, equals);
    char* end = nullptr;
    const double us =
        equals == std::string::npos ? -1 : std::strtod(entry.c_str() + equals + 1, &end);
    double* cost = key == "legacy"    ? &costs.legacy_us
                   : key == "execute" ? &costs.execute_us
                   : key == "compile" ? &costs.compile_us
                                      : nullptr;
    if (!cost || us < 0 || !end || *end != '\0') {
      std::fprintf(stderr,
                   "fakecuda: FAKECUDA_HOST_COST_US=%s: '%s' is not legacy=L, execute=E "
                   "or compile=C\n",
                   text, entry.c_str());
      continue;
    }
    *cost = us;
  }
  return costs;
}

}  // namespace

void charge_host_cost(HostCost call) {
  static const Costs costs = read_costs();
  const double us = call == HostCost::kLegacyConvolution ? costs.legacy_us
                    : call == HostCost::kPlanExecution   ? costs.execute_us
                                                         : costs.compile_us;
  if (us <= 0) return;
  fakecuda_host_busy(us / 1000);  // the GPU waits for it where the stream has nothing queued
  // Busy: the real library spends this time computing on the calling thread.
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::nanoseconds(static_cast<long long>(us * 1000));
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace ucudnn::fakecuda
