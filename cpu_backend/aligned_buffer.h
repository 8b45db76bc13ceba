#pragma once
// Workspace memory: 64-byte aligned (a cache line, an AVX-512 vector), which the Winograd
// solvers need for their non-temporal stores and every GEMM prefers.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace ucudnn::cpu {

class AlignedBuffer {
 public:
  static constexpr std::size_t kAlignment = 64;

  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    void* memory =
        std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    if (!memory) throw std::bad_alloc();
    data_.reset(static_cast<std::byte*>(memory));
  }

  std::byte* data() const { return data_.get(); }
  std::size_t size() const { return bytes_; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, Free> data_;
  std::size_t bytes_ = 0;
};

}  // namespace ucudnn::cpu
