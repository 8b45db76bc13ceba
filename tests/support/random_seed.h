#pragma once
// Randomized tests draw fresh data each run and print the seed; UCUDNN_TEST_SEED replays one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>

namespace ucudnn::testing {

inline std::uint64_t fresh_seed() {
  if (const char* fixed = std::getenv("UCUDNN_TEST_SEED")) return std::strtoull(fixed, nullptr, 10);
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

// A generator seeded freshly; the seed is printed and attached to any failure message.
class SeededRandom {
 public:
  SeededRandom() : seed_(fresh_seed()), engine_(seed_) {
    std::cout << "[ seed     ] UCUDNN_TEST_SEED=" << seed_ << " ("
              << ::testing::UnitTest::GetInstance()->current_test_info()->name() << ")\n";
    trace_ = std::make_unique<::testing::ScopedTrace>(__FILE__, __LINE__,
                                                      "UCUDNN_TEST_SEED=" + std::to_string(seed_));
  }
  std::mt19937_64& engine() { return engine_; }
  std::uint64_t seed() const { return seed_; }
  std::int64_t uniform(std::int64_t low, std::int64_t high) {  // inclusive
    return std::uniform_int_distribution<std::int64_t>(low, high)(engine_);
  }
  bool chance(double probability) { return std::bernoulli_distribution(probability)(engine_); }

 private:
  std::uint64_t seed_;
  std::mt19937_64 engine_;
  std::unique_ptr<::testing::ScopedTrace> trace_;
};

}  // namespace ucudnn::testing
