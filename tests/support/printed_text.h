#pragma once
// What a function prints to a FILE*, as a string: for tests of printed tables and messages.
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

}  // namespace ucudnn::testing
