#pragma once
// An exclusive lock on a side file, shared by every process and thread on the machine (and
// across NFS, where fcntl locks work as SQLite's own do). Held for the short moment in
// which a bad database file is inspected again and set aside, so that two processes never
// both set a file aside: the second would move the fresh one the first just made.
#include <string>

namespace ucudnn::db {

class FileLock {
 public:
  // Creates `path` when missing and waits for the lock. locked() says whether it was taken.
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool locked() const { return descriptor_ >= 0; }

 private:
  int descriptor_ = -1;
};

}  // namespace ucudnn::db
