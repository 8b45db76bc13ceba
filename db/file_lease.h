#pragma once
// A lease on a database file, taken as a lock on the side file "<database>.lock": every
// process that has the database open holds a shared lease for as long as its connection
// lives, and only the holder of the exclusive lease may set the file aside. Renaming a file
// that another process still has open would be unsafe: SQLite finds a rollback journal by
// name, so that process would take the journal of the fresh file now at the path for a hot
// journal of its own, play it back into the file set aside and delete it.
//
// Open file description locks (F_OFD_SETLK): owned by the open file, not the process, so two
// stores in one process exclude each other too and closing one never drops the other's.
// Where the kernel lacks them, classic POSIX locks. Across NFS they work as SQLite's own do.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace ucudnn::db {

class FileLease {
 public:
  enum class Mode { kShared, kExclusive };

  // Waits up to `timeout` for the lease (the lock file is created when missing). nullopt
  // when it was not granted in time; `unavailable` (if given) is set when no lock file can
  // be opened at all (a read-only folder without one), so that the caller can go on unleased.
  // `waiting` (if given) is called once when the wait outlasts `notice_after`.
  static std::optional<FileLease> acquire(const std::string& database, Mode mode,
                                          std::chrono::milliseconds timeout,
                                          bool* unavailable = nullptr,
                                          const std::function<void()>& waiting = {},
                                          std::chrono::milliseconds notice_after = {});

  FileLease(FileLease&& other) noexcept : descriptor_(other.descriptor_), mode_(other.mode_) {
    other.descriptor_ = -1;
  }
  FileLease& operator=(FileLease&& other) noexcept;
  FileLease(const FileLease&) = delete;
  FileLease& operator=(const FileLease&) = delete;
  ~FileLease();

  // Exclusive to shared without letting go in between: the file just made fresh stays so.
  void downgrade();

  // The lock file also says whether a ucudnn database has been at its path: a file there that
  // is no SQLite database is then one of ours, damaged (set aside and replaced), and otherwise
  // may be the user's (a checkpoint named by a slip), left as it is. Written by whoever opens
  // the database for writing; kept, as the lock file is. Databases last written by a ucudnn
  // older than the mark have none.
  void mark_database_held();
  bool says_database_held() const;  // read through this lease's own descriptor
  // The same without a lease: only where this process holds none on the file, for closing a
  // descriptor of the lock file drops every classic POSIX lock the process has on it.
  static bool database_was_held(const std::string& database);
  Mode mode() const { return mode_; }

 private:
  FileLease(int descriptor, Mode mode) : descriptor_(descriptor), mode_(mode) {}
  int descriptor_ = -1;
  Mode mode_ = Mode::kShared;
};

}  // namespace ucudnn::db
