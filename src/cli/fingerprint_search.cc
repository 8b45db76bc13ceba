#include "fingerprint_search.h"

#include "db/database_file.h"
#include "db/row_reader.h"

namespace ucudnn::cli {

std::map<std::string, std::size_t> fingerprints_with_results(
    const std::vector<std::string>& files, const std::set<std::string>& kernel_keys,
    const std::string& backend) {
  std::map<std::string, std::size_t> found;
  for (const auto& file : files) {
    auto connection = db::open_or_error(file, db::Access::kReadOnly);
    if (!connection) continue;
    try {
      // A damaged file: what can be read counts; `ucudnn db check` says what cannot.
      (void)db::for_each_measurement(
          connection.value().connection, [&](std::int64_t, Expected<db::MeasurementRow> row) {
            if (row && row->backend == backend && kernel_keys.count(row->kernel_key))
              ++found[row->fingerprint];
          });
    } catch (const std::exception&) {
      // Not readable at all: here it simply has nothing.
    }
  }
  return found;
}

}  // namespace ucudnn::cli
