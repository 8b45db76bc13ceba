#include "user_input/byte_size.h"

#include <gtest/gtest.h>

namespace ucudnn {
namespace {

TEST(ByteSize, ParsesUnits) {
  EXPECT_EQ(*parse_byte_size("4096"), 4096u);
  EXPECT_EQ(*parse_byte_size("64MiB"), 64u << 20);
  EXPECT_EQ(*parse_byte_size("64mib"), 64u << 20);
  EXPECT_EQ(*parse_byte_size(" 1 GiB "), 1u << 30);
  EXPECT_EQ(*parse_byte_size("1.5GiB"), 3u << 29);
  EXPECT_EQ(*parse_byte_size("8M"), 8u << 20);
  EXPECT_EQ(*parse_byte_size("512KiB"), 512u << 10);
  EXPECT_EQ(*parse_byte_size("1GB"), 1000000000u);
  EXPECT_EQ(*parse_byte_size("100B"), 100u);
  EXPECT_EQ(*parse_byte_size("0"), 0u);
  EXPECT_EQ(*parse_byte_size("9000000000000000000"), 9000000000000000000u);  // above 2^63
  EXPECT_EQ(*parse_byte_size("10000000TB"), 10000000000000000000u);
}

TEST(ByteSize, RejectsNonsenseNamingTheText) {
  for (const char* bad : {"", "MiB", "-5", "12 apples", "1e3", "1..2MiB", "99999999999TiB",
                          "100000000TB", "18446744073709551616"}) {
    auto parsed = parse_byte_size(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().find(std::string("'") + bad + "'"), std::string::npos)
        << parsed.error();
  }
}

TEST(ByteSize, ASizeBeyondWhatBytesCanCountIsTooLargeNotUnreadable) {
  for (const char* big :
       {"99999999999TiB", "100000000TB", "18446744073709551616", "99999999999999999999999"}) {
    auto parsed = parse_byte_size(big);
    ASSERT_FALSE(parsed) << big;
    EXPECT_EQ(parsed.error(),
              std::string("byte size '") + big + "' is too large: at most 16 EiB (2^64 - 1 bytes)");
  }
}

TEST(ByteSize, Formats) {
  EXPECT_EQ(format_byte_size(64u << 20), "64 MiB");
  EXPECT_EQ(format_byte_size(3u << 29), "1.5 GiB");
  EXPECT_EQ(format_byte_size(100), "100 B");
}

}  // namespace
}  // namespace ucudnn
