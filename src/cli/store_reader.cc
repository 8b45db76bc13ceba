#include "store_reader.h"

#include "db/fingerprint_fields.h"

namespace ucudnn::cli {

StoreReader::StoreReader(std::string backend, std::string fingerprint, AlgorithmLister algorithms,
                         std::vector<BenchmarkStore*> stores)
    : backend_(std::move(backend)),
      fingerprint_text_(std::move(fingerprint)),
      algorithms_(std::move(algorithms)),
      stores_(std::move(stores)) {}

DeviceFingerprint StoreReader::fingerprint() const {
  return DeviceFingerprint{db::fingerprint_fields(fingerprint_text_)};
}

std::optional<Measurement> StoreReader::benchmark(const KernelKey& kernel,
                                                  const std::string& algorithm,
                                                  std::int64_t micro_batch) {
  const KernelKey micro = kernel.with_batch(micro_batch);
  for (BenchmarkStore* store : stores_)
    if (auto found = store->find_measurement(fingerprint_text_, micro, backend_, algorithm)) {
      std::lock_guard lock(mutex_);
      answered_.insert(kernel.to_string());
      return found->measurement;
    }
  std::lock_guard lock(mutex_);
  missing_.insert({kernel.to_string(), micro_batch, algorithm});
  return std::nullopt;
}

std::set<std::string> StoreReader::answered() const {
  std::lock_guard lock(mutex_);
  return answered_;
}

std::set<StoreReader::Missing> StoreReader::missing() const {
  std::lock_guard lock(mutex_);
  return missing_;
}

}  // namespace ucudnn::cli
