#pragma once
// Where a command writes a file the user named (report --out, db export): "-" is standard
// output, and so are /dev/stdout and /dev/fd/1 (whatever standard output is redirected to, with
// its own position and mode); another file descriptor's path, a device or a pipe (/dev/null, a
// FIFO) is written in place, appended to, never truncated or replaced; a regular file is written
// beside its target (through symbolic links, beside the file they end at, which need not exist
// yet) and renamed over it only once everything was written, with the target's permissions, so
// that a failed run never leaves half a file where a good one was. A target in a folder the
// user cannot write is written in place instead, as a plain open would. A SQLite database is
// never written over.
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace ucudnn::cli {

class OutputFile {
 public:
  // `option`: how messages name where the path came from ("--out"); empty for an argument.
  OutputFile(std::string path, std::string option);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // an uncommitted temporary file is removed

  // Standard output, named as "-" or as a path to it.
  bool to_standard_output() const { return standard_output_; }
  // Where to write, or nullptr when the destination cannot be opened (error() says why).
  std::ostream* stream();
  // Flushes and puts the file in place; false (error() says why) when anything written did
  // not reach it, leaving the destination as it was where it is a regular file.
  bool commit();
  const std::string& error() const { return error_; }

 private:
  // A file descriptor's buffer that keeps the cause of a failed write (a std::ofstream loses it).
  class DescriptorBuffer : public std::streambuf {
   public:
    explicit DescriptorBuffer(int fd);
    ~DescriptorBuffer() override;
    int failure() const { return failure_; }  // the errno of the first failed write, or 0
    bool close();                             // flushes and closes; false on any failure

   protected:
    int_type overflow(int_type c) override;
    int sync() override;

   private:
    bool drain();
    int fd_;
    int failure_ = 0;
    char buffer_[1 << 16];
  };

  std::string named(const std::string& what) const;
  int open_temporary_beside(const std::string& target);

  std::string path_, option_;
  bool standard_output_ = false;
  std::string target_;     // the regular file renamed over, or empty
  std::string temporary_;  // beside target_, while uncommitted
  std::unique_ptr<DescriptorBuffer> buffer_;
  std::unique_ptr<std::ostream> file_;
  std::string error_;
};

// Standard output reached its destination (a full disk, /dev/full, a closed pipe: not); the
// message names the failure otherwise. A failure is said once: the state is cleared after.
bool standard_output_written(std::string& error);

}  // namespace ucudnn::cli
