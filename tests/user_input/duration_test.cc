#include "user_input/duration.h"

#include <gtest/gtest.h>

namespace ucudnn {
namespace {

TEST(Duration, ParsesMillisecondsAndSeconds) {
  EXPECT_EQ(parse_duration("100ms")->count(), 100);
  EXPECT_EQ(parse_duration("1.5s")->count(), 1500);
  EXPECT_EQ(parse_duration("250")->count(), 250);
  EXPECT_FALSE(parse_duration("soon"));
  EXPECT_FALSE(parse_duration("-1s"));
  EXPECT_FALSE(parse_duration("2h")) << "over an hour";
  // Minutes and hours, a space before the unit, any case (as byte sizes): "2 s" and "5min"
  // were refused by a setting whose warning said "at most an hour".
  EXPECT_EQ(parse_duration("2 s")->count(), 2000);
  EXPECT_EQ(parse_duration("5min")->count(), 300000);
  EXPECT_EQ(parse_duration("1h")->count(), 3600000);
  EXPECT_EQ(parse_duration("100 MS")->count(), 100);
  EXPECT_EQ(parse_duration("1.5S")->count(), 1500);
  // Written as people write durations, nothing else strtod reads.
  for (const char* bad : {"0x10", "1e3", "inf", "nan", " 5", "5 ", "+5", ".", "s", " min", "5m"})
    EXPECT_FALSE(parse_duration(bad)) << bad;
}

// "UCUDNN_DATABASE_LOCK_TIMEOUT=60" is 60 ms, read as such with nothing said, where seconds
// were likely meant: a bare number up to 60 gets a note; "100" (the default) does not.
TEST(Duration, ABareNumberUpToSixtyIsNotedAsMilliseconds) {
  EXPECT_EQ(unitless_duration_note("60"),
            "'60' is 60 ms (a number without a unit is milliseconds); for seconds write 60s");
  EXPECT_TRUE(unitless_duration_note("2.5"));
  for (const char* quiet : {"0", "61", "100", "1000", "1500", "60s", "100ms", "soon", ""})
    EXPECT_FALSE(unitless_duration_note(quiet)) << quiet;
}

// Totals of a fast network keep their digits; slow ones read as before.
TEST(Duration, MillisecondsKeepFourSignificantDigitsBelowAHundred) {
  EXPECT_EQ(format_milliseconds(425.24), "425.2 ms");
  EXPECT_EQ(format_milliseconds(3.4712), "3.471 ms");
  EXPECT_EQ(format_milliseconds(0.0123456), "0.01235 ms");
  EXPECT_EQ(format_milliseconds(0), "0 ms");
  EXPECT_EQ(format_milliseconds(12345.67), "12345.7 ms");
}

}  // namespace
}  // namespace ucudnn
