#include "host_cost.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ucudnn::fakecuda {

namespace {

struct Costs {
  double legacy_us = 0, execute_us = 0;
};

Costs read_costs() {
  Costs costs;
  const char* text = std::getenv("FAKECUDA_HOST_COST_US");
  if (!text) return costs;
  double legacy = 0, execute = 0;
  if (std::sscanf(text, "legacy=%lf,execute=%lf", &legacy, &execute) == 2 && legacy >= 0 &&
      execute >= 0) {
    costs.legacy_us = legacy;
    costs.execute_us = execute;
  } else {
    std::fprintf(stderr, "fakecuda: FAKECUDA_HOST_COST_US=%s is not legacy=L,execute=E\n", text);
  }
  return costs;
}

}  // namespace

void charge_host_cost(HostCost call) {
  static const Costs costs = read_costs();
  const double us = call == HostCost::kLegacyConvolution ? costs.legacy_us : costs.execute_us;
  if (us <= 0) return;
  // Busy: the real library spends this time computing on the calling thread.
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::nanoseconds(static_cast<long long>(us * 1000));
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace ucudnn::fakecuda
