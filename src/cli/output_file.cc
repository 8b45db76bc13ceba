#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "db/database_file.h"

namespace ucudnn::cli {

namespace fs = std::filesystem;

namespace {

struct Destination {
  fs::path path;                 // where the links end (may not exist yet)
  bool standard_output = false;  // a name of file descriptor 1
  bool descriptor = false;       // another process-relative name (/dev/fd/N, /proc/...)
};

bool starts_with(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}

// Follows `path`'s symbolic links by hand, so that a dangling one still names where the file
// goes, and /dev/stdout is known for what it is before the kernel resolves it to whatever
// standard output is redirected to.
Destination resolve(const std::string& path) {
  Destination d{path};
  const std::string own_fd1 = "/proc/" + std::to_string(::getpid()) + "/fd/1";
  for (int hop = 0; hop < 40; ++hop) {
    const std::string text = d.path.lexically_normal().string();
    if (text == "/dev/stdout" || text == "/dev/fd/1" || text == "/proc/self/fd/1" ||
        text == own_fd1) {
      d.standard_output = true;
      return d;
    }
    if (starts_with(text, "/dev/fd/") || starts_with(text, "/proc/") || text == "/dev/stderr") {
      d.descriptor = true;
      return d;
    }
    std::error_code code;
    if (!fs::is_symlink(fs::symlink_status(d.path, code))) return d;
    const fs::path next = fs::read_symlink(d.path, code);
    if (code) return d;
    d.path = next.is_absolute() ? next : d.path.parent_path() / next;
  }
  return d;
}

bool writable_folder(const fs::path& file) {
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  return ::access(folder.c_str(), W_OK | X_OK) == 0;
}

}  // namespace

OutputFile::DescriptorBuffer::DescriptorBuffer(int fd) : fd_(fd) {
  setp(buffer_, buffer_ + sizeof buffer_);
}

OutputFile::DescriptorBuffer::~DescriptorBuffer() {
  if (fd_ >= 0) ::close(fd_);
}

bool OutputFile::DescriptorBuffer::drain() {
  for (const char* next = pbase(); next < pptr();) {
    const ssize_t wrote = ::write(fd_, next, static_cast<std::size_t>(pptr() - next));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      if (failure_ == 0) failure_ = wrote < 0 ? errno : EIO;
      setp(buffer_, buffer_ + sizeof buffer_);
      return false;
    }
    next += wrote;
  }
  setp(buffer_, buffer_ + sizeof buffer_);
  return true;
}

OutputFile::DescriptorBuffer::int_type OutputFile::DescriptorBuffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int OutputFile::DescriptorBuffer::sync() {
  return drain() ? 0 : -1;
}

bool OutputFile::DescriptorBuffer::close() {
  const bool drained = drain();
  const int closed = ::close(fd_);
  if (closed != 0 && failure_ == 0) failure_ = errno;
  fd_ = -1;
  return drained && closed == 0 && failure_ == 0;
}

OutputFile::OutputFile(std::string path, std::string option)
    : path_(std::move(path)), option_(std::move(option)) {
  standard_output_ = path_.empty() || path_ == "-" || resolve(path_).standard_output;
}

OutputFile::~OutputFile() {
  file_.reset();
  buffer_.reset();  // closes the descriptor
  if (temporary_.empty()) return;
  std::error_code ignored;
  fs::remove(temporary_, ignored);
}

std::string OutputFile::named(const std::string& what) const {
  return (option_.empty() ? "" : option_ + ": ") + what + " '" + path_ + "'";
}

// Made anew (never a file or link someone put there), readable as the file it replaces is.
int OutputFile::open_temporary_beside(const std::string& target) {
  for (int n = 0; n < 100; ++n) {
    const std::string name =
        target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(n);
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return -1;
    struct stat old {};
    if (::stat(target.c_str(), &old) == 0) {
      (void)!::fchmod(fd, old.st_mode & 07777);
      if (::geteuid() == 0) (void)!::fchown(fd, old.st_uid, old.st_gid);
    }
    temporary_ = name;
    return fd;
  }
  errno = EEXIST;
  return -1;
}

std::ostream* OutputFile::stream() {
  if (standard_output_) return &std::cout;
  if (file_) return file_.get();
  const Destination d = resolve(path_);
  std::error_code code;
  const fs::file_status status = fs::status(d.path, code);
  if (fs::is_directory(status)) {
    error_ = named("cannot write") + ": it is a folder";
    return nullptr;
  }
  // A slip of the option (report --out ucudnn.db, db export other.db) would put a page or an
  // export where a database's measurements were: refused, the file untouched.
  if (fs::is_regular_file(status) && db::is_database_file(d.path.string())) {
    error_ = named("will not write over") +
             ": it is a SQLite database (a benchmark database?), which would be lost; name "
             "another file, or remove it first";
    return nullptr;
  }
  const bool exists = fs::exists(status);
  int fd = -1;
  if (d.descriptor || (exists && !fs::is_regular_file(status))) {
    // A device, a pipe, another descriptor's file: appended to, never truncated or replaced.
    fd = ::open(d.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  } else if (exists && (::access(d.path.c_str(), W_OK) != 0 ||
                        (status.permissions() & (fs::perms::owner_write | fs::perms::group_write |
                                                 fs::perms::others_write)) == fs::perms::none)) {
    // A file its owner made read-only is not replaced behind their back, not even by root, whom
    // access() lets write anything.
    errno = EACCES;
  } else if (!writable_folder(d.path)) {
    // In place, as a plain open would.
    fd = ::open(d.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  } else {
    target_ = d.path.string();
    fd = open_temporary_beside(target_);
  }
  if (fd < 0) {
    error_ = named("cannot write") + ": " + std::strerror(errno);
    return nullptr;
  }
  buffer_ = std::make_unique<DescriptorBuffer>(fd);
  file_ = std::make_unique<std::ostream>(buffer_.get());
  return file_.get();
}

bool OutputFile::commit() {
  if (!error_.empty()) return false;
  if (standard_output_) return standard_output_written(error_);
  if (!file_ && !stream()) return false;
  file_->flush();
  if (!buffer_->close()) {
    error_ = named("writing") + " failed: " + std::strerror(buffer_->failure());
    return false;
  }
  if (temporary_.empty()) return true;
  std::error_code code;
  fs::rename(temporary_, target_, code);
  if (code) {
    error_ = named("cannot write") + ": " + code.message();
    return false;
  }
  temporary_.clear();
  return true;
}

bool standard_output_written(std::string& error) {
  std::cout.flush();
  // Where an earlier write failed, its cause is gone by now: the message then gives none.
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout) return true;
  error =
      std::string("standard output could not be written") +
      (errno ? std::string(": ") + std::strerror(errno) : std::string(" (part of it is missing)"));
  // Said once: a later check finds it clean unless it fails again.
  std::clearerr(stdout);
  std::cout.clear();
  return false;
}

}  // namespace ucudnn::cli
