// Time zones: validation, local formatting, datetime-local parsing.
#include "core/timezone.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/clock.h"

namespace peto {
namespace {

constexpr std::int64_t kJuly1Noon = 1782907200000;  // 2026-07-01T12:00:00Z

TEST(TimeZoneTest, KnowsIanaNames) {
  EXPECT_TRUE(is_valid_time_zone("Europe/Lisbon"));
  EXPECT_TRUE(is_valid_time_zone("UTC"));
  EXPECT_TRUE(is_valid_time_zone("America/New_York"));
  EXPECT_FALSE(is_valid_time_zone("Mars/Base"));
  EXPECT_FALSE(is_valid_time_zone(""));
  EXPECT_FALSE(is_valid_time_zone("europe/lisbon"));
  EXPECT_FALSE(is_valid_time_zone("../../etc/passwd"));
}

TEST(TimeZoneTest, FormatsInTheZone) {
  EXPECT_EQ(format_local(kJuly1Noon, "Europe/Lisbon"), "2026-07-01 13:00");
  EXPECT_EQ(format_local(kJuly1Noon, "Asia/Tokyo"), "2026-07-01 21:00");
  EXPECT_EQ(format_local(kJuly1Noon, "UTC", "%H:%M %Z"), "12:00 UTC");
  // An unknown zone shows UTC rather than failing.
  EXPECT_EQ(format_local(kJuly1Noon, "Mars/Base"), "2026-07-01 12:00");
  // The forms written directly agree with the general one.
  EXPECT_EQ(format_local(kJuly1Noon, "America/St_Johns", "%Y-%m-%dT%H:%M"), "2026-07-01T09:30");
  EXPECT_EQ(format_local(kJuly1Noon, "Pacific/Kiritimati", "%Y-%m-%d"), "2026-07-02");
  EXPECT_EQ(format_local(kJuly1Noon + 59'999, "UTC"), "2026-07-01 12:00");
  EXPECT_EQ(format_local(-1, "UTC"), "1969-12-31 23:59");
}

TEST(TimeZoneTest, LocalDateCrossesMidnight) {
  constexpr std::int64_t jan1_1430 = 1767277800000;  // 2026-01-01T14:30Z
  EXPECT_EQ(local_date(jan1_1430, "UTC"), "2026-01-01");
  EXPECT_EQ(local_date(jan1_1430, "Pacific/Kiritimati"), "2026-01-02");  // UTC+14
  EXPECT_EQ(local_date(1767225600000, "America/New_York"), "2025-12-31");
}

TEST(TimeZoneTest, LocalDayCountsTheDaysOfTheZone) {
  // 2026-03-14 10:30 UTC is 23:30 that day in Auckland (NZDT, +13) and 06:30
  // in New York; an hour later it is already the 15th in Auckland.
  const std::int64_t t = *parse_time("2026-03-14T10:30:00Z");
  const std::int64_t march_14 = *parse_date_utc_ms("2026-03-14") / 86'400'000;
  EXPECT_EQ(local_day(t, "Pacific/Auckland"), march_14);
  EXPECT_EQ(local_day(t + 3'600'000, "Pacific/Auckland"), march_14 + 1);
  EXPECT_EQ(local_day(t, "America/New_York"), march_14);
  EXPECT_EQ(local_day(t, "UTC"), march_14);
  EXPECT_EQ(local_day(0, "UTC"), 0);
  EXPECT_EQ(local_day(-1, "UTC"), -1) << "the last millisecond of 1969";
}

TEST(TimeZoneTest, ParsesDatetimeLocalInTheZone) {
  EXPECT_EQ(parse_local("2026-07-01T13:00", "Europe/Lisbon"), kJuly1Noon);
  EXPECT_EQ(parse_local("2026-07-01 13:00", "Europe/Lisbon"), kJuly1Noon);
  EXPECT_EQ(parse_local("2026-07-01T13:00:00", "Europe/Lisbon"), kJuly1Noon);
  EXPECT_EQ(parse_local("2026-07-01T12:00", "UTC"), kJuly1Noon);
  EXPECT_EQ(parse_local("2026-07-01T12:00", "Mars/Base"), kJuly1Noon);  // unknown: UTC
  for (const char* junk : {"", "2026-07-01", "2026-07-01T25:00", "2026-02-30T10:00",
                           "2026-07-01T12:60", "2026-7-1T12:00", "2026-07-01X12:00",
                           "2026-07-01T12:00Z", "abcd-ef-ghTij:kl", "2026-07-01T12:00:61"}) {
    EXPECT_EQ(parse_local(junk, "UTC"), std::nullopt) << junk;
  }
}

TEST(TimeZoneTest, ClockChangesResolveToTheEarliest) {
  // Lisbon skips 01:00–02:00 on 2026-03-29: a skipped time is the change itself.
  EXPECT_EQ(parse_local("2026-03-29T01:30", "Europe/Lisbon"), 1774746000000);
  // …and lives 01:00–02:00 twice on 2026-10-25: the first (summer time) one wins.
  EXPECT_EQ(parse_local("2026-10-25T01:30", "Europe/Lisbon"), 1792888200000);
}

TEST(TimeZoneTest, ParsesRealDatesOnly) {
  EXPECT_EQ(parse_date_utc_ms("2026-01-01"), 1767225600000);
  EXPECT_EQ(parse_date_utc_ms("2024-02-29"), 1709164800000);
  for (const char* junk : {"2026-02-30", "2025-02-29", "2026-13-01", "2026-00-10", "2026-01-1",
                           "26-01-01", "2026/01/01", "", "2026-01-01T00:00"}) {
    EXPECT_EQ(parse_date_utc_ms(junk), std::nullopt) << junk;
  }
}

// The profile's list, and what people type: a city finds its zone.
TEST(TimeZone, PlacesFindTheirZone) {
  const auto& names = time_zone_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "Europe/Berlin"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "UTC"), names.end());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_TRUE(std::none_of(names.begin(), names.end(),
                           [](const std::string& n) { return n.starts_with("Etc/"); }));
  EXPECT_EQ(find_time_zone("Berlin"), "Europe/Berlin");
  EXPECT_EQ(find_time_zone(" new york "), "America/New_York");
  EXPECT_EQ(find_time_zone("europe/lisbon"), "Europe/Lisbon");
  EXPECT_EQ(find_time_zone("Europe/Lisbon"), "Europe/Lisbon");
  EXPECT_EQ(find_time_zone("Buenos Aires"), "America/Argentina/Buenos_Aires");
  EXPECT_EQ(find_time_zone("Atlantis"), std::nullopt);
  EXPECT_EQ(find_time_zone(""), std::nullopt);
}

}  // namespace
}  // namespace peto
