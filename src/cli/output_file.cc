#include "output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace ucudnn::cli {

namespace fs = std::filesystem;

OutputFile::OutputFile(std::string path, std::string option)
    : path_(std::move(path)), option_(std::move(option)) {}

OutputFile::~OutputFile() {
  if (temporary_.empty()) return;
  file_.close();
  std::error_code ignored;
  fs::remove(temporary_, ignored);
}

std::string OutputFile::named(const std::string& what) const {
  return (option_.empty() ? "" : option_ + ": ") + what + " '" + path_ + "'";
}

std::ostream* OutputFile::stream() {
  if (to_standard_output()) return &std::cout;
  if (file_.is_open()) return &file_;
  std::error_code code;
  const fs::file_status status = fs::status(path_, code);
  if (fs::is_directory(status)) {
    error_ = named("cannot write") + ": it is a folder";
    return nullptr;
  }
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    // A device or a pipe: there is nothing to put in place, and replacing it is not ours to do.
    file_.open(path_, std::ios::binary);
    if (!file_) {
      error_ = named("cannot write") + ": " + std::strerror(errno);
      return nullptr;
    }
    return &file_;
  }
  // Through a link, the file it names is replaced and the link kept.
  target_ = fs::exists(status) ? fs::canonical(path_, code).string() : path_;
  if (code) target_ = path_;
  temporary_ = target_ + ".tmp-" + std::to_string(::getpid());
  file_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!file_) {
    error_ = named("cannot write") + ": " + std::strerror(errno);
    temporary_.clear();
    return nullptr;
  }
  return &file_;
}

bool OutputFile::commit() {
  if (!error_.empty()) return false;
  if (to_standard_output()) return standard_output_written(error_);
  if (!file_.is_open() && !stream()) return false;
  file_.flush();
  const int flush_error = errno;
  const bool written = static_cast<bool>(file_);
  file_.close();
  if (!written || !file_) {
    error_ = named("writing") + " failed: " + std::strerror(written ? errno : flush_error);
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
  return false;
}

}  // namespace ucudnn::cli
