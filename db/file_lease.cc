#include "db/file_lease.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <thread>

namespace ucudnn::db {

namespace {

// What a lock file holds once a ucudnn database has been opened for writing beside it.
constexpr std::string_view kHeldMark = "a ucudnn database\n";

// One attempt: 0 granted, EAGAIN/EACCES held by someone else, another errno: cannot lock.
int try_lock(int descriptor, short type) {
  struct flock request {};
  request.l_type = type;
  request.l_whence = SEEK_SET;
  if (::fcntl(descriptor, F_OFD_SETLK, &request) == 0) return 0;
  if (errno == EINVAL) {  // no OFD locks in this kernel or file system
    request.l_pid = 0;
    if (::fcntl(descriptor, F_SETLK, &request) == 0) return 0;
  }
  return errno == EACCES || errno == EAGAIN ? EAGAIN : errno;
}

}  // namespace

std::optional<FileLease> FileLease::acquire(const std::string& database, Mode mode,
                                            std::chrono::milliseconds timeout, bool* unavailable,
                                            const std::function<void()>& waiting,
                                            std::chrono::milliseconds notice_after) {
  using namespace std::chrono;
  if (unavailable) *unavailable = false;
  const std::string path = database + ".lock";
  int descriptor = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  // A shared lease needs only reading: a lock file someone else made in a folder we may not
  // write still serves.
  if (descriptor < 0 && mode == Mode::kShared)
    descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) {
    if (unavailable) *unavailable = true;
    return std::nullopt;
  }
  const short type = mode == Mode::kShared ? F_RDLCK : F_WRLCK;
  const auto start = steady_clock::now(), deadline = start + timeout;
  bool noticed = !waiting;
  for (int attempt = 0;; ++attempt) {
    const int result = try_lock(descriptor, type);
    if (result == 0) return FileLease(descriptor, mode);
    if (!noticed && steady_clock::now() - start >= notice_after) {
      noticed = true;
      waiting();
    }
    if (result != EAGAIN || steady_clock::now() >= deadline) {
      ::close(descriptor);
      if (unavailable && result != EAGAIN) *unavailable = true;
      return std::nullopt;
    }
    std::this_thread::sleep_for(milliseconds(attempt < 10 ? 1 : attempt < 30 ? 5 : 20));
  }
}

FileLease& FileLease::operator=(FileLease&& other) noexcept {
  if (this != &other) {
    if (descriptor_ >= 0) ::close(descriptor_);
    descriptor_ = other.descriptor_;
    mode_ = other.mode_;
    other.descriptor_ = -1;
  }
  return *this;
}

FileLease::~FileLease() {
  // Closing releases the lock. The lock file stays: removing it while another process waits
  // on it would let a third lock a new file of the same name.
  if (descriptor_ >= 0) ::close(descriptor_);
}

namespace {

bool reads_held_mark(int descriptor) {
  char text[kHeldMark.size()];
  const auto read = ::pread(descriptor, text, sizeof text, 0);
  return read == static_cast<ssize_t>(sizeof text) &&
         std::string_view(text, sizeof text) == kHeldMark;
}

}  // namespace

void FileLease::mark_database_held() {
  struct stat status {};
  if (descriptor_ < 0 || ::fstat(descriptor_, &status) != 0 || status.st_size != 0) return;
  // A lock file this process cannot write (another user's) stays unmarked: its damage is then
  // left as it is, never a user's file renamed.
  [[maybe_unused]] const auto written =
      ::pwrite(descriptor_, kHeldMark.data(), kHeldMark.size(), 0);
}

bool FileLease::says_database_held() const {
  return descriptor_ >= 0 && reads_held_mark(descriptor_);
}

bool FileLease::database_was_held(const std::string& database) {
  const int descriptor = ::open((database + ".lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) return false;
  const bool held = reads_held_mark(descriptor);
  ::close(descriptor);
  return held;
}

void FileLease::downgrade() {
  if (descriptor_ < 0 || mode_ == Mode::kShared) return;
  if (try_lock(descriptor_, F_RDLCK) == 0) mode_ = Mode::kShared;
}

}  // namespace ucudnn::db
