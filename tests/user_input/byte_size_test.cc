#include "user_input/byte_size.h"

#include <gtest/gtest.h>

#include <cctype>
#include <tuple>
#include <vector>

#include "support/random_seed.h"

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
  for (const char* bad :
       {"", "MiB", "-5", "12 apples", "1e3", "1..2MiB", "99999999999TiB", "100000000TB",
        "18446744073709551616", "0x1.8p1MiB", "1.5e1MiB", "+1.5MiB"}) {
    auto parsed = parse_byte_size(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().find(std::string("'") + bad + "'"), std::string::npos)
        << parsed.error();
  }
}

// The spellings the error offers are ones it takes, and says which unit is which (1GB beside
// a refused 1KB read as a slip).
TEST(ByteSize, TheErrorsExamplesAreSizesItTakes) {
  const std::string error = parse_byte_size("-5").error();
  const auto examples = error.substr(error.find("unit: ") + 6);
  int taken = 0;
  for (std::size_t at = 0; at < examples.size();) {
    const auto end = examples.find_first_of(" ,()", at);
    const std::string word = examples.substr(at, end - at);
    at = end == std::string::npos ? examples.size() : end + 1;
    if (word.empty() || !std::isdigit(static_cast<unsigned char>(word[0]))) continue;
    EXPECT_TRUE(parse_byte_size(word)) << word << " in: " << error;
    ++taken;
  }
  EXPECT_GE(taken, 5) << error;
  EXPECT_NE(error.find("1GiB (powers of 1024)"), std::string::npos) << error;
  EXPECT_NE(error.find("1GB (of 1000)"), std::string::npos) << error;
}

TEST(ByteSize, ASizeBeyondWhatBytesCanCountIsTooLargeNotUnreadable) {
  for (const char* big : {"99999999999TiB", "100000000TB", "18446744073709551616",
                          "99999999999999999999999", "16EiB", "16.0EiB"}) {
    auto parsed = parse_byte_size(big);
    ASSERT_FALSE(parsed) << big;
    EXPECT_EQ(parsed.error(), std::string("byte size '") + big +
                                  "' is too large: the most is 2^64 - 1 bytes "
                                  "(18446744073709551615, just under 16 EiB)");
  }
  // The largest is read exactly, not through a double that rounds it up to 2^64.
  EXPECT_EQ(*parse_byte_size("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(*parse_byte_size("15EiB"), 15ull << 60);
  EXPECT_EQ(*parse_byte_size("1PiB"), 1ull << 50);
  EXPECT_EQ(*parse_byte_size("2EB"), 2000000000000000000ull);
}

// "KB" and "mb" are read as 1000 by some and 1024 by others ("Mb" as bits): refused, saying what
// to write; the decimal units as written and the binary ones in any case are read.
TEST(ByteSize, AnAmbiguousUnitSaysWhichToWrite) {
  for (const auto& [text, unit, binary, decimal] :
       std::vector<std::tuple<const char*, const char*, const char*, const char*>>{
           {"8KB", "KB", "KiB", "kB"},
           {"8mb", "mb", "MiB", "MB"},
           {"8Mb", "Mb", "MiB", "MB"},
           {"1gb", "gb", "GiB", "GB"}}) {
    auto parsed = parse_byte_size(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_EQ(parsed.error(), std::string("byte size '") + text + "': '" + unit +
                                  "' is read both ways; write " + binary + " (powers of 1024) or " +
                                  decimal + " (powers of 1000)");
  }
  EXPECT_EQ(*parse_byte_size("8kB"), 8000u);
  EXPECT_EQ(*parse_byte_size("8kib"), 8192u);
}

TEST(ByteSize, APlainNumberIsAWholeNumberOfBytes) {
  for (const char* fraction : {"1.5", "0.5B"}) {
    auto parsed = parse_byte_size(fraction);
    ASSERT_FALSE(parsed) << fraction;
    EXPECT_EQ(parsed.error(),
              std::string("byte size '") + fraction + "' is not a whole number of bytes");
  }
  EXPECT_EQ(*parse_byte_size("2.0"), 2u);
  EXPECT_EQ(*parse_byte_size("0.5KiB"), 512u);
}

// "512" for a workspace is mostly a slip for 512MiB: it is read as bytes, as before, and noted.
TEST(ByteSize, ASmallNumberWithoutAUnitIsNotedAsBytes) {
  EXPECT_EQ(unitless_size_note("512"),
            "'512' is 512 bytes (a number without a unit is bytes), too little for most fast "
            "convolution algorithms; for mebibytes write 512MiB");
  EXPECT_EQ(unitless_size_note(" 1 "),
            "'1' is 1 byte (a number without a unit is bytes), too little for most fast "
            "convolution algorithms; for mebibytes write 1MiB");
  // Where the mebibytes would be a large size, their size is said.
  EXPECT_EQ(unitless_size_note("65536"),
            "'65536' is 65536 bytes (a number without a unit is bytes), too little for most fast "
            "convolution algorithms; for mebibytes write 65536MiB (64 GiB)");
  EXPECT_EQ(unitless_size_note("0064"),
            "'0064' is 64 bytes (a number without a unit is bytes), too little for most fast "
            "convolution algorithms; for mebibytes write 64MiB");
  EXPECT_TRUE(unitless_size_note("000000512")) << "leading zeros say nothing of the size";
  // Nothing to note: no workspace at all, a number that as mebibytes would be more than 64 GiB
  // (bytes meant), or a unit written.
  for (const char* text :
       {"0", "65537", "204800", "1048576", "67108864", "512B", "512KiB", "64MiB", "2.0", "", "x"})
    EXPECT_FALSE(unitless_size_note(text)) << text;
}

// A per-kernel limit of 0 is no workspace, where many tools read 0 as no limit: said, however
// zero is written; any other size says nothing.
TEST(ByteSize, AZeroLimitIsNotedAsNoWorkspace) {
  const std::string said =
      "' gives each kernel no workspace at all (0 is not unlimited): only algorithms that need "
      "none are candidates";
  EXPECT_EQ(zero_limit_note("0"), "'0" + said);
  EXPECT_EQ(zero_limit_note(" 0 "), "'0" + said);
  EXPECT_EQ(zero_limit_note("0MiB"), "'0MiB" + said);
  EXPECT_EQ(zero_limit_note("0.0GiB"), "'0.0GiB" + said);
  for (const char* other : {"1", "512", "64MiB", "0.5KiB", "", "x", "-0"})
    EXPECT_FALSE(zero_limit_note(other)) << other;
}

TEST(ByteSize, Formats) {
  EXPECT_EQ(format_byte_size(64u << 20), "64 MiB");
  EXPECT_EQ(format_byte_size(3u << 29), "1.5 GiB");
  EXPECT_EQ(format_byte_size(100), "100 B");
  EXPECT_EQ(format_byte_size(3ull << 50), "3 PiB");
  EXPECT_EQ(format_byte_size(UINT64_MAX), "16 EiB");
}

// A limit suggested to the user: never less than what is needed, as plan --explain's "a larger
// limit" (it said "1.0 MiB" for 1.04 MiB, the limit it was explaining).
TEST(ByteSize, ASuggestedLimitIsAtLeastWhatIsNeeded) {
  EXPECT_EQ(format_byte_size_at_least(1090519), "1.04 MiB");
  EXPECT_EQ(format_byte_size_at_least(64ull << 20), "64 MiB");
  EXPECT_EQ(format_byte_size_at_least(3ull << 29), "1.5 GiB");
  EXPECT_EQ(format_byte_size_at_least((300ull << 20) + 1), "301 MiB");
  // Above TiB a decimal would not read back exactly (parse_byte_size multiplies a double).
  EXPECT_EQ(format_byte_size_at_least((3ull << 49) + 1), "1537 TiB");
  EXPECT_EQ(format_byte_size_at_least(5000), "4.9 KiB");
  EXPECT_EQ(format_byte_size_at_least(31936), "31.2 KiB");
  EXPECT_EQ(format_byte_size_at_least(1030), "1.01 KiB");
  EXPECT_EQ(format_byte_size_at_least(1000), "1000 B");
  EXPECT_EQ(format_byte_size_at_least(0), "0 B");
  EXPECT_EQ(format_byte_size_at_least(UINT64_MAX), "18446744073709551615 B");
  testing::SeededRandom random;
  for (int i = 0; i < 1000; ++i) {
    const auto bytes = static_cast<std::uint64_t>(random.uniform(1, std::int64_t{1} << 50));
    const std::string text = format_byte_size_at_least(bytes);
    const auto back = parse_byte_size(text);
    ASSERT_TRUE(back) << text;
    EXPECT_GE(*back, bytes) << text;
    EXPECT_LE(static_cast<double>(*back), static_cast<double>(bytes) * 1.01 + 1) << text;
  }
}

}  // namespace
}  // namespace ucudnn
