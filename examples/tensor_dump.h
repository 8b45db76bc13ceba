#pragma once
// The binary format conv_network --dump writes, and a reader for tests. A file is a
// sequence of records until its end, each (native byte order, no padding):
//   uint32 name_length, name bytes (e.g. "conv2.dw", not terminated),
//   uint64 count, count float32 values
// Values are the device buffer as it is stored (NHWC tensors in NHWC order), so two runs
// of the same program compare bitwise.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ucudnn::examples {

struct DumpedTensor {
  std::string name;
  std::vector<float> values;
};

namespace tensor_dump_detail {
struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;
}  // namespace tensor_dump_detail

// Throws std::runtime_error when the file cannot be written.
inline void write_tensor_dump(const std::string& path, const std::vector<DumpedTensor>& tensors) {
  tensor_dump_detail::File file(std::fopen(path.c_str(), "wb"));
  if (!file) throw std::runtime_error("cannot open " + path + " for writing");
  for (const DumpedTensor& tensor : tensors) {
    const auto length = static_cast<std::uint32_t>(tensor.name.size());
    const auto count = static_cast<std::uint64_t>(tensor.values.size());
    if (std::fwrite(&length, sizeof length, 1, file.get()) != 1 ||
        std::fwrite(tensor.name.data(), 1, length, file.get()) != length ||
        std::fwrite(&count, sizeof count, 1, file.get()) != 1 ||
        std::fwrite(tensor.values.data(), sizeof(float), count, file.get()) != count)
      throw std::runtime_error("cannot write " + path);
  }
  if (std::fflush(file.get()) != 0) throw std::runtime_error("cannot write " + path);
}

// Throws std::runtime_error when the file is missing, truncated or malformed.
inline std::vector<DumpedTensor> read_tensor_dump(const std::string& path) {
  tensor_dump_detail::File file(std::fopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error("cannot open " + path);
  std::vector<DumpedTensor> tensors;
  for (;;) {
    std::uint32_t length = 0;
    const std::size_t got = std::fread(&length, sizeof length, 1, file.get());
    if (got == 0 && std::feof(file.get())) return tensors;
    DumpedTensor tensor;
    std::uint64_t count = 0;
    constexpr std::uint32_t kMaxName = 4096;
    constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 34;
    if (got != 1 || length > kMaxName) throw std::runtime_error(path + ": bad name length");
    tensor.name.resize(length);
    if (std::fread(tensor.name.data(), 1, length, file.get()) != length ||
        std::fread(&count, sizeof count, 1, file.get()) != 1 || count > kMaxCount)
      throw std::runtime_error(path + ": truncated record header");
    tensor.values.resize(count);
    if (std::fread(tensor.values.data(), sizeof(float), count, file.get()) != count)
      throw std::runtime_error(path + ": truncated values of " + tensor.name);
    tensors.push_back(std::move(tensor));
  }
}

}  // namespace ucudnn::examples
