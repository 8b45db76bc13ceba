#pragma once
// A BenchmarkStore in one SQLite file, with MemoryStore's semantics, shared safely by every
// process and thread that opens the same file (rollback journal, never WAL, which breaks on
// network file systems).
//
// It never stops the application, and never stalls it for long:
// - On open, a file that is not a database, or one of ours that is damaged, is renamed aside
//   ("<path>.<problem>-<unix time>", under a lock on "<path>.lock", so that of many processes
//   opening it at once exactly one sets it aside) and replaced by a fresh database. Another
//   application's SQLite file, or a newer ucudnn's, is never changed or renamed: a newer
//   one is read when its tables are readable; otherwise the store runs without caching. A
//   folder or file that cannot be written leaves the store read-only or without caching.
// - The rows of a device are read into memory at its first lookup (as MIOpen preloads its
//   find-db): later lookups cost no query. Rows other processes write afterwards are not
//   seen until the next process.
// - Writes go to memory at once and to the file in a transaction. When the file is locked
//   past `lock_timeout`, full, or failing, they are kept and retried at the next write,
//   at flush() and when the store closes. A file renamed away by another process is opened
//   again; damage found in use sets the file aside as on open. While saves are held
//   (hold_saves), a thread's writes wait in memory for its last release: one transaction for
//   many.
// Each problem is one warning. A garbage row reads as absent.
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "core/benchmark_store.h"
#include "db/warning.h"

namespace ucudnn {

enum class StoreAccess {
  kReadWrite,  // the user database: created, migrated, written
  kReadOnly,   // read with locks, never written or created (`ucudnn plan`)
  kShared,     // a system database: read without locks (SQLite's immutable), so that a
               // read-only network file system works and another process's lock costs nothing
};

struct SqliteStoreOptions {
  StoreAccess access = StoreAccess::kReadWrite;
  WarningSink warn = warn_on_stderr;
  // How long one operation waits for another process's lock. The shim waits briefly (a
  // training step must not stall): reads then proceed uncached and writes are kept.
  std::chrono::milliseconds lock_timeout{60'000};
  // A wait longer than notice_after is announced once through `notice` (empty: never).
  std::chrono::milliseconds notice_after{1'000};
  WarningSink notice;
  // How messages name the file: "benchmark database", "system benchmark database".
  std::string role = "benchmark database";
};

enum class StoreState {
  kReadWrite,
  kReadOnly,  // lookups answered from the file; writes kept in memory only
  kDisabled,  // no usable file: lookups find only what this process wrote
};

class SqliteStore final : public BenchmarkStore {
 public:
  explicit SqliteStore(const std::string& path, SqliteStoreOptions options = {});
  ~SqliteStore() override;  // saves what is still unsaved, waiting up to lock_timeout
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  std::optional<MeasurementRecord> find_measurement(const std::string& fingerprint,
                                                    const KernelKey& micro_kernel,
                                                    const std::string& backend,
                                                    const std::string& algorithm) override;
  // Per key, the record with the later measured_at stays (on equal times, the new one).
  std::vector<std::string> measured_algorithms(const std::string& fingerprint,
                                               const std::string& backend,
                                               const std::set<std::string>& micro_kernels) override;
  void put_measurements(const std::vector<MeasurementRecord>& records) override;
  std::optional<std::vector<Configuration>> find_plan(const PlanKey& key) override;
  void put_plan(const PlanKey& key, const std::vector<Configuration>& plan,
                const LimitRange& valid) override;
  using BenchmarkStore::put_plan;
  std::vector<std::string> plan_subjects(const PlanKey& key) override;
  // Opens the file again if it was locked at open, reads devices whose rows were locked,
  // and saves what is still unsaved; where the file's lock outlasted lock_timeout before,
  // without waiting for it again (confirm_saved and the destructor still wait).
  void flush() override;
  void hold_saves() override;
  void release_saves() override;
  // Reads the rows this process saved back through a connection of its own, so that it sees
  // the file now at `path`; rows missing there are written again, once.
  std::vector<std::string> confirm_saved() override;

  const std::string& path() const;
  StoreState state() const;
  // Opened without its file because another process held the file's lock past lock_timeout
  // (the store runs uncached and tries the file again at the next flush()).
  bool locked_at_open() const;
  // Rows not saved yet because writing failed (a lock held past lock_timeout, a full disk):
  // they are retried at the next write, flush() and close. Rows that break the rules
  // (negative or non-finite times) are never saved and not counted.
  std::size_t failed_writes() const;
  // SQL statements run since the file was opened: lookups of a loaded device run none.
  std::size_t statements_run() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ucudnn
