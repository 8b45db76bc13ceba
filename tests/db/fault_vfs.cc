#include "fault_vfs.h"

#include <sqlite3.h>

#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstring>

namespace ucudnn::testing {

namespace {

sqlite3_vfs* real_vfs = nullptr;
sqlite3_vfs fault_vfs;
std::atomic<std::int64_t> full_after{-1};
std::atomic<std::int64_t> written{0};
std::atomic<int> kill_at{0};
std::atomic<int> writes{0};
std::atomic<std::int64_t> reads{0};

// The wrapper's file: our methods, then the real VFS's file right behind it.
struct FaultFile {
  const sqlite3_io_methods* methods;
  sqlite3_file* real;
  bool main_database;
};

sqlite3_file* real_of(sqlite3_file* file) {
  return reinterpret_cast<FaultFile*>(file)->real;
}

int fault_close(sqlite3_file* file) {
  return real_of(file)->pMethods->xClose(real_of(file));
}

int fault_read(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
  if (reinterpret_cast<FaultFile*>(file)->main_database) ++reads;
  return real_of(file)->pMethods->xRead(real_of(file), buffer, amount, offset);
}

int fault_write(sqlite3_file* file, const void* buffer, int amount, sqlite3_int64 offset) {
  sqlite3_file* real = real_of(file);
  if (reinterpret_cast<FaultFile*>(file)->main_database)
    if (const int at = kill_at.load(); at > 0 && ++writes == at) std::raise(SIGKILL);
  // A full disk refuses new space, in the database and its journal alike; overwriting what a
  // file already holds still works (so that SQLite can roll back).
  if (const auto limit = full_after.load(); limit >= 0) {
    sqlite3_int64 size = 0;
    real->pMethods->xFileSize(real, &size);
    if (offset + amount > size && (written += amount) > limit) return SQLITE_FULL;
  }
  return real->pMethods->xWrite(real, buffer, amount, offset);
}

int fault_truncate(sqlite3_file* f, sqlite3_int64 size) {
  return real_of(f)->pMethods->xTruncate(real_of(f), size);
}
int fault_sync(sqlite3_file* f, int flags) {
  return real_of(f)->pMethods->xSync(real_of(f), flags);
}
int fault_file_size(sqlite3_file* f, sqlite3_int64* size) {
  return real_of(f)->pMethods->xFileSize(real_of(f), size);
}
int fault_lock(sqlite3_file* f, int level) {
  return real_of(f)->pMethods->xLock(real_of(f), level);
}
int fault_unlock(sqlite3_file* f, int level) {
  return real_of(f)->pMethods->xUnlock(real_of(f), level);
}
int fault_check_reserved(sqlite3_file* f, int* out) {
  return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}
int fault_file_control(sqlite3_file* f, int op, void* arg) {
  return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}
int fault_sector_size(sqlite3_file* f) {
  return real_of(f)->pMethods->xSectorSize(real_of(f));
}
int fault_device_characteristics(sqlite3_file* f) {
  return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
}
int fault_shm_map(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return real_of(f)->pMethods->xShmMap(real_of(f), page, size, extend, out);
}
int fault_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
}
void fault_shm_barrier(sqlite3_file* f) {
  real_of(f)->pMethods->xShmBarrier(real_of(f));
}
int fault_shm_unmap(sqlite3_file* f, int delete_flag) {
  return real_of(f)->pMethods->xShmUnmap(real_of(f), delete_flag);
}
int fault_fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  // No memory-mapped reads: every read goes through fault_read and is counted.
  (void)f, (void)offset, (void)amount;
  *out = nullptr;
  return SQLITE_OK;
}
int fault_unfetch(sqlite3_file* f, sqlite3_int64 offset, void* page) {
  (void)f, (void)offset, (void)page;
  return SQLITE_OK;
}

const sqlite3_io_methods kMethods = {
    3,
    fault_close,
    fault_read,
    fault_write,
    fault_truncate,
    fault_sync,
    fault_file_size,
    fault_lock,
    fault_unlock,
    fault_check_reserved,
    fault_file_control,
    fault_sector_size,
    fault_device_characteristics,
    fault_shm_map,
    fault_shm_lock,
    fault_shm_barrier,
    fault_shm_unmap,
    fault_fetch,
    fault_unfetch,
};

constexpr std::size_t kHeader = (sizeof(FaultFile) + 15) / 16 * 16;

int fault_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* out) {
  auto* wrapper = reinterpret_cast<FaultFile*>(file);
  wrapper->methods = nullptr;
  wrapper->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kHeader);
  wrapper->main_database = (flags & SQLITE_OPEN_MAIN_DB) != 0;
  const int rc = real_vfs->xOpen(real_vfs, name, wrapper->real, flags, out);
  // SQLite calls xClose only when pMethods is set: set it only when the real file is open.
  if (wrapper->real->pMethods) wrapper->methods = &kMethods;
  return rc;
}

}  // namespace

void arm_faults(const FaultPlan& plan) {
  if (!real_vfs) {
    real_vfs = sqlite3_vfs_find(nullptr);
    fault_vfs = *real_vfs;
    fault_vfs.zName = "ucudnn-faults";
    fault_vfs.szOsFile = static_cast<int>(kHeader) + real_vfs->szOsFile;
    fault_vfs.xOpen = fault_open;
    fault_vfs.pNext = nullptr;
    sqlite3_vfs_register(&fault_vfs, 1);
  }
  written = 0;
  writes = 0;
  full_after = plan.full_after_bytes;
  kill_at = plan.kill_at_write;
}

void disarm_faults() {
  full_after = -1;
  kill_at = 0;
}

std::int64_t main_database_reads() {
  return reads.load();
}

void reset_main_database_reads() {
  reads = 0;
}

}  // namespace ucudnn::testing
