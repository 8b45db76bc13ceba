#pragma once
// A BenchmarkStore in one SQLite file, with MemoryStore's semantics, shared safely by every
// process and thread that opens the same file (rollback journal, busy timeout, write
// transactions retried when busy; never WAL, which breaks on network file systems).
//
// It never stops the application. On open, a file that is not a database, damaged,
// truncated, another application's or of a newer schema is renamed aside
// ("<path>.<problem>-<unix time>", under a lock on "<path>.lock" so that concurrent
// processes set it aside once) and replaced by a fresh database; a directory that cannot
// be created or written, or a read-only file, leaves the store read-only (when the file is
// usable) or without caching (lookups find nothing, writes are dropped). Each of these is
// one warning. A garbage row reads as absent.
#include <cstddef>
#include <memory>
#include <string>

#include "core/benchmark_store.h"
#include "db/warning.h"

namespace ucudnn {

struct SqliteStoreOptions {
  // Open read-only and never write, create, migrate or rename the file (a system database
  // on a shared file system). Problems leave the store without content, with one warning.
  bool read_only = false;
  WarningSink warn = warn_on_stderr;
};

enum class StoreState {
  kReadWrite,
  kReadOnly,  // lookups answered from the file; writes dropped
  kDisabled,  // no usable file: lookups find nothing; writes dropped
};

class SqliteStore final : public BenchmarkStore {
 public:
  explicit SqliteStore(const std::string& path, SqliteStoreOptions options = {});
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  std::optional<MeasurementRecord> find_measurement(const std::string& fingerprint,
                                                    const KernelKey& micro_kernel,
                                                    const std::string& backend,
                                                    const std::string& algorithm) override;
  // Per key, the record with the later measured_at stays (on equal times, the new one).
  void put_measurements(const std::vector<MeasurementRecord>& records) override;
  std::optional<std::vector<Configuration>> find_plan(const PlanKey& key) override;
  void put_plan(const PlanKey& key, const std::vector<Configuration>& plan) override;

  const std::string& path() const;
  StoreState state() const;
  // Records and plans that a read-write store failed to save (I/O errors, a lock held past
  // the busy timeout and retries). Invalid records (negative or non-finite times) are not
  // counted: they are never saved.
  std::size_t failed_writes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ucudnn
