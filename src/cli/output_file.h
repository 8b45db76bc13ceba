#pragma once
// Where a command writes a file the user named (report --out, db export): "-" is standard
// output; a device or a pipe (/dev/stdout, a FIFO, /dev/null) is written in place; a regular
// file is written beside its target (through a symbolic link, beside the file it names) and
// renamed over it only once everything was written, so that a failed run never leaves half a
// file where a good one was, and never replaces what is not a regular file.
#include <fstream>
#include <ostream>
#include <string>

namespace ucudnn::cli {

class OutputFile {
 public:
  // `option`: how messages name where the path came from ("--out"); empty for an argument.
  OutputFile(std::string path, std::string option);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // an uncommitted temporary file is removed

  bool to_standard_output() const { return path_ == "-" || path_.empty(); }
  // Where to write, or nullptr when the destination cannot be opened (error() says why).
  std::ostream* stream();
  // Flushes and puts the file in place; false (error() says why) when anything written did
  // not reach it, leaving the destination as it was where it is a regular file.
  bool commit();
  const std::string& error() const { return error_; }

 private:
  std::string named(const std::string& what) const;

  std::string path_, option_;
  std::string target_;     // the regular file renamed over (a link's target), or empty
  std::string temporary_;  // beside target_, while uncommitted
  std::ofstream file_;
  std::string error_;
};

// Standard output reached its destination (a full disk, /dev/full, a closed pipe: not); the
// message names the failure otherwise.
bool standard_output_written(std::string& error);

}  // namespace ucudnn::cli
