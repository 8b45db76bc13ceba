#include "core/stored_benchmarker.h"

namespace ucudnn {

std::optional<Measurement> StoredBenchmarker::benchmark(const KernelKey& kernel,
                                                        const std::string& algorithm,
                                                        std::int64_t micro_batch) {
  const KernelKey micro = kernel.with_batch(micro_batch);
  const std::string backend = inner_.backend_name();
  if (auto stored = store_.find_measurement(fingerprint_text_, micro, backend, algorithm))
    return stored->measurement;
  ++measurements_taken_;
  // MeasurementUnavailable passes through unstored: a later run measures it.
  const std::optional<Measurement> measured = inner_.benchmark(kernel, algorithm, micro_batch);
  if (measured) ++measurements_run_;
  store_.put_measurements(
      {MeasurementRecord{fingerprint_text_, micro, backend, algorithm, measured, 0}});
  return measured;
}

}  // namespace ucudnn
