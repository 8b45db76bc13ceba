#pragma once
// What `ucudnn db info|merge|export|import|check|vacuum` do, as functions: they return a
// result or an error message and print nothing. Unlike the store, they never set a bad file
// aside: they report it. Files they only read are opened read-only. `wait`: how long each waits
// for another process's lock, and what it says meanwhile (the tool's UCUDNN_DATABASE_LOCK_TIMEOUT).
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/expected.h"
#include "db/damaged_scan.h"
#include "db/sqlite.h"

namespace ucudnn::db {

struct FingerprintSummary {
  std::string fingerprint;  // canonical DeviceFingerprint text
  std::size_t measurements = 0;
  std::size_t unsupported = 0;  // of those, measured as not supported
  std::size_t plans = 0;
  std::int64_t last_measured_at = 0;  // Unix seconds; 0 without measurements
};

struct DatabaseInfo {
  std::uint64_t file_size = 0;
  int schema_version = 0;
  std::size_t measurements = 0;
  std::size_t plans = 0;
  std::vector<FingerprintSummary> fingerprints;  // in canonical text order
};
Expected<DatabaseInfo> database_info(const std::string& path, const sqlite::LockWait& wait = {});

struct MergeResult {
  std::size_t measurements_read = 0;
  std::size_t measurements_written = 0;  // new keys, or newer than the target's
  std::size_t plans_read = 0;
  std::size_t plans_written = 0;
  std::size_t invalid_rows_skipped = 0;  // rows of the source `db check` reports
  Unreadable unreadable;                 // a damaged source's rows that could not be read
};
// Copies `source` into `target` (created when missing) in one transaction. Per key, the
// later measured_at (created_at for plans) wins; on equal times the target's row stays, so
// merging twice changes nothing. Fingerprints are part of every key: results of different
// devices never replace each other.
Expected<MergeResult> merge_database(const std::string& source, const std::string& target,
                                     const sqlite::LockWait& wait = {});
// Several sources at once, all or nothing: every source is read before the target is written,
// in one transaction; a source that cannot be read is an error and nothing is written. One
// result per source, in order (a key in two sources: the later measured wins, as above).
Expected<std::vector<MergeResult>> merge_databases(const std::vector<std::string>& sources,
                                                   const std::string& target,
                                                   const sqlite::LockWait& wait = {});

enum class ExportLayout {
  kDocument,  // one JSON document, indented
  kLines,     // JSON lines: a header line, then one row per line
};
struct ExportResult {
  std::size_t fingerprints = 0;
  std::size_t measurements = 0;
  std::size_t plans = 0;
  std::size_t invalid_rows_skipped = 0;
  Unreadable unreadable;  // a damaged file's rows that could not be read
};
// Every valid row, in the format of export_format.h; of a damaged file, every one that can be
// read (damaged_scan.h).
Expected<ExportResult> export_database(const std::string& path, std::ostream& out,
                                       ExportLayout layout, const sqlite::LockWait& wait = {});

struct ImportResult {
  std::size_t measurements_read = 0;
  std::size_t measurements_written = 0;
  std::size_t plans_read = 0;
  std::size_t plans_written = 0;
};
// Reads either layout. Every field of every row is validated before anything is written;
// the first bad one is the error, naming the row, the field and the value, and the database
// is left untouched. Rows then go in as with merge_database, in one transaction.
Expected<ImportResult> import_database(const std::string& path, std::istream& in,
                                       const sqlite::LockWait& wait = {});

struct CheckReport {
  std::vector<std::string> problems;  // empty: healthy
  std::size_t measurements_checked = 0;
  std::size_t plans_checked = 0;
  Unreadable unreadable;  // damage: what could not be read (also among the problems)
  bool damaged = false;   // SQLite's integrity_check found damage (an index, a page list)
  bool ok() const { return problems.empty(); }
};
// PRAGMA integrity_check, then every row: types and ranges, kernel hashes, plans that parse,
// micro-batches that are positive and (for WR plans) sum to the kernel's batch within the
// workspace limit. An Error only when the file cannot be read at all (missing, no
// permission); a damaged or foreign file is a problem in the report.
Expected<CheckReport> check_database(const std::string& path, const sqlite::LockWait& wait = {});

struct VacuumResult {
  std::uint64_t size_before = 0;
  std::uint64_t size_after = 0;
};
Expected<VacuumResult> vacuum_database(const std::string& path, const sqlite::LockWait& wait = {});

}  // namespace ucudnn::db
