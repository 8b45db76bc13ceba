#pragma once
// What a function prints to a FILE*, as a string, and how often a text holds a phrase: for
// tests of printed tables, messages and logs.
#include <cstdio>
#include <cstdlib>
#include <string>

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

}  // namespace ucudnn::testing
