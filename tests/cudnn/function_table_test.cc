// Calls through a function table (cudnn/function_table.h) are calls into the real library: the
// host-time account counts their time as the library's, never as ucudnn's own, and a call that
// comes back into the shim from inside one is known as the library's.
#include "cudnn/function_table.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

#include "cudnn/real_call_clock.h"

namespace {

bool inside_when_called = false;

}  // namespace

// A library function that takes 2 ms of the host, as a slow real call would.
extern "C" int ucudnn_test_slow_call(int* out) {
  inside_when_called = ucudnn::cudnn::RealCallClock::inside_real_call();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
  while (std::chrono::steady_clock::now() < until) {
  }
  *out = 7;
  return 0;
}

namespace ucudnn::cudnn {
namespace {

#define UCUDNN_TEST_FUNCTIONS(X) X(ucudnn_test_slow_call)
UCUDNN_FUNCTION_TABLE(TestTable, UCUDNN_TEST_FUNCTIONS)

TEST(FunctionTable, ACallThroughATableIsTheRealLibrarysTime) {
  const TestTable table = TestTable::resolve(
      [](const char*) { return reinterpret_cast<void*>(&ucudnn_test_slow_call); });
  ASSERT_TRUE(table.complete());
  ASSERT_TRUE(table.ucudnn_test_slow_call);
  RealCallClock::start_counting();
  int out = 0;
  EXPECT_EQ(table.ucudnn_test_slow_call(&out), 0);
  const std::uint64_t real_ns = RealCallClock::stop_counting();
  EXPECT_EQ(out, 7);
  EXPECT_TRUE(inside_when_called) << "a call back into the shim from there would be ucudnn's";
  EXPECT_GE(real_ns, 2'000'000u) << "the call's 2 ms counted as ucudnn's own";
  EXPECT_FALSE(RealCallClock::inside_real_call());
}

TEST(FunctionTable, AFunctionNotFoundIsNullAndNamed) {
  const TestTable table = TestTable::resolve([](const char*) -> void* { return nullptr; });
  EXPECT_FALSE(table.ucudnn_test_slow_call);
  EXPECT_FALSE(table.complete());
  EXPECT_EQ(table.missing, "ucudnn_test_slow_call");
}

}  // namespace
}  // namespace ucudnn::cudnn
