#pragma once
// Faults a real file system gives rarely and at random, on demand: a VFS below SQLite that
// wraps the default one and can fail writes as a full disk does (SQLITE_FULL), kill the process at
// the Nth write to it (a job killed in the middle of a commit, after its journal was synced), and
// count reads of it. Install it in a forked child: it becomes the process's default VFS, so the
// store under test uses it unchanged.
#include <cstdint>

namespace ucudnn::testing {

struct FaultPlan {
  // Writes that need new space (in a database or a journal) fail with SQLITE_FULL once this
  // many bytes of new space were taken after arming (-1: never).
  std::int64_t full_after_bytes = -1;
  // The process raises SIGKILL instead of doing the Nth write (1-based) to a main database
  // file after arming (0: never).
  int kill_at_write = 0;
};

// Registers the wrapper as the default VFS (once per process) and arms `plan`.
void arm_faults(const FaultPlan& plan);
void disarm_faults();

// Reads of main database files since the VFS was installed (or the count was reset).
std::int64_t main_database_reads();
void reset_main_database_reads();

}  // namespace ucudnn::testing
