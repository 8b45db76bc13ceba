#pragma once
// A file's bytes as a string, and a string written as a file's bytes.
#include <fstream>
#include <iterator>
#include <string>

namespace ucudnn::testing {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace ucudnn::testing
