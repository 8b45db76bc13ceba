// `ucudnn db info` (commands.h): counts of measurements and plans per device.
#include <algorithm>
#include <filesystem>
#include <map>

#include "db/database_file.h"
#include "db/maintenance/commands.h"

namespace ucudnn::db {

Expected<DatabaseInfo> database_info(const std::string& path, const sqlite::LockWait& wait) {
  try {
    auto connection = open_or_error(path, Access::kReadOnly, OpenOptions{wait});
    if (!connection) return Error{connection.error()};
    auto& c = connection.value().connection;
    DatabaseInfo info;
    std::error_code ignored;
    info.file_size = std::filesystem::file_size(path, ignored);
    info.schema_version = static_cast<int>(c.query_integer("PRAGMA user_version"));
    info.measurements =
        static_cast<std::size_t>(c.query_integer("SELECT count(*) FROM measurements"));
    info.plans = static_cast<std::size_t>(c.query_integer("SELECT count(*) FROM plans"));

    std::map<std::int64_t, FingerprintSummary> by_id;
    {
      auto statement = c.prepare("SELECT id, canonical FROM fingerprints");
      auto row = statement.start();
      while (row.step()) by_id[row.integer(0)].fingerprint = row.text(1);
    }
    {
      auto statement = c.prepare(
          "SELECT fingerprint_id, count(*), sum(status = 'unsupported'), max(measured_at) "
          "FROM measurements GROUP BY fingerprint_id");
      auto row = statement.start();
      while (row.step()) {
        auto found = by_id.find(row.integer(0));
        if (found == by_id.end()) continue;  // rows without a fingerprint: `check` reports them
        found->second.measurements = static_cast<std::size_t>(row.integer(1));
        found->second.unsupported = static_cast<std::size_t>(row.integer(2));
        found->second.last_measured_at = row.is_integer(3) ? row.integer(3) : 0;
      }
    }
    {
      auto statement =
          c.prepare("SELECT fingerprint_id, count(*) FROM plans GROUP BY fingerprint_id");
      auto row = statement.start();
      while (row.step()) {
        auto found = by_id.find(row.integer(0));
        if (found != by_id.end()) found->second.plans = static_cast<std::size_t>(row.integer(1));
      }
    }
    for (auto& [id, summary] : by_id) info.fingerprints.push_back(std::move(summary));
    std::sort(info.fingerprints.begin(), info.fingerprints.end(),
              [](const auto& a, const auto& b) { return a.fingerprint < b.fingerprint; });
    return info;
  } catch (const std::exception& error) {
    return Error{path + ": " + error.what()};
  }
}

}  // namespace ucudnn::db
