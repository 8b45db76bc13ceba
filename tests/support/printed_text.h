#pragma once
// What a function prints to a FILE*, as a string, its lines, and how often a text holds a
// phrase: for tests of printed tables, messages, logs and other programs' output.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace ucudnn::testing {

template <typename Print>
std::string printed_text(Print&& print) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&text, &size);
  print(out);
  std::fclose(out);
  std::string result(text, size);
  std::free(text);
  return result;
}

// How many times `what` occurs in `text` (overlapping occurrences counted).
inline int count_of(const std::string& text, const std::string& what) {
  int count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// The lines of `text`, without their newlines.
inline std::vector<std::string> lines_in(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace ucudnn::testing
