#pragma once
// What an SQLite database file's header says, read from the file itself.
#include <cstdint>
#include <fstream>
#include <string>

namespace ucudnn::testing {

// The file change counter: SQLite adds one at each write transaction in rollback-journal mode
// (big-endian, bytes 24-27 of the header); 0 where the file cannot be read.
inline std::uint32_t sqlite_change_counter(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  unsigned char bytes[4] = {};
  file.seekg(24);
  if (!file.read(reinterpret_cast<char*>(bytes), 4)) return 0;
  return std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 |
         std::uint32_t{bytes[2]} << 8 | std::uint32_t{bytes[3]};
}

}  // namespace ucudnn::testing
