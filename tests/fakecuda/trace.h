#pragma once
// The doubles' event trace: when FAKECUDA_TRACE names a file, each event appends one line.
// Every line goes out in a single write() on an O_APPEND descriptor, so processes and
// threads sharing the file never interleave within a line. The line formats are listed in
// README.md and at the top of cudnn_library_api.cc.

namespace ucudnn::fakecuda {

// True when FAKECUDA_TRACE is set (read at each call, so a test may set it late).
bool trace_enabled();

// Appends the formatted text and a newline. Lines longer than 1 KiB are cut.
void trace_line(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ucudnn::fakecuda
