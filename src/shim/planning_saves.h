#pragma once
// Holds the store's saves while a kernel is planned (HeldSaves: its measurements and its plan in
// one transaction), and counts the writing at the end with measuring's time: the outermost hold
// ends after the kernel's MeasuringTime, and its commit (a synchronous one, milliseconds; or a
// wait for another process's lock, UCUDNN_DATABASE_LOCK_TIMEOUT) is the warm-up's too
// (cudnn/measuring_account.h).
#include <optional>

#include "core/benchmark_store.h"
#include "cudnn/measuring_account.h"

namespace ucudnn::shim {

class PlanningSaves {
 public:
  explicit PlanningSaves(BenchmarkStore& store) : held_(std::in_place, store) {}
  ~PlanningSaves() {
    const cudnn::DatabaseWriteTime writing;
    held_.reset();
  }
  PlanningSaves(const PlanningSaves&) = delete;
  PlanningSaves& operator=(const PlanningSaves&) = delete;

 private:
  std::optional<HeldSaves> held_;
};

}  // namespace ucudnn::shim
