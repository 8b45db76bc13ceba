#include "db/file_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

namespace ucudnn::db {

namespace {

// fcntl locks belong to the process: threads of one process are kept apart by this.
std::mutex& process_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

FileLock::FileLock(const std::string& path) {
  process_mutex().lock();
  descriptor_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (descriptor_ < 0) {
    process_mutex().unlock();
    return;
  }
  struct flock request {};
  request.l_type = F_WRLCK;
  request.l_whence = SEEK_SET;
  int rc;
  while ((rc = ::fcntl(descriptor_, F_SETLKW, &request)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    ::close(descriptor_);
    descriptor_ = -1;
    process_mutex().unlock();
  }
}

FileLock::~FileLock() {
  if (descriptor_ < 0) return;
  // Closing releases the lock. The file stays: removing it while another process waits on
  // it would let a third lock a new file of the same name.
  ::close(descriptor_);
  process_mutex().unlock();
}

}  // namespace ucudnn::db
