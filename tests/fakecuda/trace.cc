#include "trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace ucudnn::fakecuda {

namespace {

const char* trace_path() {
  const char* path = std::getenv("FAKECUDA_TRACE");
  return path && *path ? path : nullptr;
}

}  // namespace

bool trace_enabled() {
  return trace_path() != nullptr;
}

void trace_line(const char* format, ...) {
  const char* path = trace_path();
  if (!path) return;
  char line[1024];
  va_list arguments;
  va_start(arguments, format);
  int length = std::vsnprintf(line, sizeof line - 1, format, arguments);
  va_end(arguments);
  if (length < 0) return;
  if (length > static_cast<int>(sizeof line) - 2) length = sizeof line - 2;
  line[length++] = '\n';
  // Opened per line: the trace is for tests, and this way a test may point FAKECUDA_TRACE
  // at a fresh file at any time, and a forked child never shares a stale descriptor.
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  [[maybe_unused]] const ssize_t written = ::write(fd, line, static_cast<size_t>(length));
  ::close(fd);
}

}  // namespace ucudnn::fakecuda
