#pragma once
// What the example programs' command lines share: integers with a lower bound, byte sizes
// (read as ucudnn reads UCUDNN_WORKSPACE_LIMIT, so that one value serves both), the data types
// they store tensors in, and where --dump writes. Each program says what a bad value is through its
// own usage text (`refuse`: prints the problem and the program's usage, then exits with status 2).
#include <cudnn.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>

#include "user_input/byte_size.h"

namespace ucudnn::examples {

using Refusal = void (*)(const std::string& problem);

inline long long parse_integer(const std::string& option, const std::string& text, long long low,
                               Refusal refuse) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < low)
    refuse(option + ": invalid value '" + text + "'");
  return value;
}

// "8MiB", "8MB", "1.5 GiB", "4096".
inline std::size_t parse_bytes(const std::string& option, const std::string& text, Refusal refuse) {
  const auto bytes = parse_byte_size(text);
  if (!bytes) refuse(option + ": " + bytes.error());
  if (*bytes > SIZE_MAX) refuse(option + ": '" + text + "' is too large");
  return static_cast<std::size_t>(*bytes);
}

// --dump FILE: a folder that does not exist is refused before the run, not after it.
inline std::string dump_path(const std::string& text, Refusal refuse) {
  if (text.empty()) refuse("--dump: an empty file name");
  const std::filesystem::path folder = std::filesystem::path(text).parent_path();
  std::error_code error;
  if (!folder.empty() && !std::filesystem::is_directory(folder, error))
    refuse("--dump: '" + text + "': no folder '" + folder.string() + "' to write it in");
  return text;
}

// Refuses an option that is none of the program's options taking a value (`valued`) as unknown,
// before its value is looked for: "--bogus" given last is unknown, not short of a value.
inline void refuse_unknown(const std::string& option, std::initializer_list<const char*> valued,
                           Refusal refuse) {
  for (const char* name : valued)
    if (option == name) return;
  refuse("unknown option " + option);
}

// --data-type float|half|bf16.
inline cudnnDataType_t parse_data_type(const std::string& text, Refusal refuse) {
  if (text == "float") return CUDNN_DATA_FLOAT;
  if (text == "half") return CUDNN_DATA_HALF;
  if (text == "bf16") return CUDNN_DATA_BFLOAT16;
  refuse("--data-type: '" + text + "' is not float, half or bf16");
  return CUDNN_DATA_FLOAT;  // not reached: refuse exits
}

}  // namespace ucudnn::examples
