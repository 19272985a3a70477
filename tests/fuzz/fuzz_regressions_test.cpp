// Inputs the fuzz targets (tests/fuzz) found breaking a promise, kept as
// tests in the ordinary build; each input is also a seed of its target's
// corpus (tests/fuzz/corpus/<target>/).
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "formats/ical.h"

namespace peto {
namespace {

bool has_control(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return true;
  return false;
}

// cards: a DEL (0x7F) in an EMAIL line's value came through read_card
// (corpus/cards/read_card_del_in_email, without its first byte).
TEST(FuzzRegressions, ReadCardDropsDelete) {
  const std::string text =
      "BEGIN:VCARD\n\nFN:Bo\nEMAIL;PREF=1\x7f:bDx.examo@x.exapleW-SLREF=1\x7f:bDx:122\nEND:VCARD\n";
  auto read = formats::read_card(text);
  ASSERT_TRUE(std::holds_alternative<formats::Card>(read)) << std::get<std::string>(read);
  const auto& card = std::get<formats::Card>(read);
  EXPECT_FALSE(has_control(card.email)) << card.email;
  EXPECT_EQ(card.email, "bDx.examo@x.exapleW-SLREF=1:bDx:122");
  EXPECT_EQ(card.name, "Bo");
}

// The same through an escape: "\" before a control character kept it.
TEST(FuzzRegressions, EscapedControlCharactersAreDroppedToo) {
  const std::string text =
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:u\r\nDTSTART:20270122T140000Z\r\n"
      "SUMMARY:Call\\\x01 Ana\\\x7f\\, now\x7f\r\nDESCRIPTION:a\\nb\\\tc\r\nEND:VEVENT\r\n"
      "END:VCALENDAR\r\n";
  auto read = formats::read_calendar(text, "UTC");
  ASSERT_TRUE(std::holds_alternative<formats::CalItem>(read)) << std::get<std::string>(read);
  const auto& item = std::get<formats::CalItem>(read);
  EXPECT_EQ(item.summary, "Call Ana, now");
  EXPECT_EQ(item.description, "a\nb\tc");  // tab and line end stay
}

}  // namespace
}  // namespace peto
