// The interview .ics file: CRLF lines, text escaping, folding at 75 octets
// without splitting a UTF-8 character, and a UID that does not change.
#include "domain/calendar.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/clock.h"

namespace peto::domain {
namespace {

using nlohmann::json;

const std::int64_t kStart = *parse_time("2027-01-20T09:00:00Z");
const std::int64_t kNow = *parse_time("2027-01-15T08:00:00Z");

Record interview(json more = json::object()) {
  Record r = {{"id", 7},
              {"application_id", 3},
              {"kind", "video"},
              {"starts_at", kStart},
              {"ends_at", kStart + 90 * 60 * 1000},
              {"place", nullptr},
              {"outcome", "scheduled"},
              {"notes", nullptr}};
  for (auto& [k, v] : more.items()) r[k] = v;
  return r;
}

// The physical lines, split at CRLF; fails the test on a bare CR or LF.
std::vector<std::string> physical_lines(const std::string& ics) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < ics.size()) {
    auto end = ics.find("\r\n", start);
    EXPECT_NE(end, std::string::npos) << "the file ends in CRLF";
    if (end == std::string::npos) break;
    std::string line = ics.substr(start, end - start);
    EXPECT_EQ(line.find('\n'), std::string::npos) << "bare LF in: " << line;
    EXPECT_EQ(line.find('\r'), std::string::npos) << "bare CR in: " << line;
    lines.push_back(line);
    start = end + 2;
  }
  return lines;
}

// Content lines with folding undone (RFC 5545 §3.1).
std::vector<std::string> content_lines(const std::string& ics) {
  std::vector<std::string> out;
  for (const std::string& line : physical_lines(ics)) {
    if (!line.empty() && line[0] == ' ' && !out.empty())
      out.back() += line.substr(1);
    else
      out.push_back(line);
  }
  return out;
}

std::string property(const std::string& ics, const std::string& name) {
  for (const std::string& line : content_lines(ics))
    if (line.rfind(name + ":", 0) == 0) return line.substr(name.size() + 1);
  return "(no " + name + ")";
}

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

TEST(Calendar, EveryLineEndsInCrlf) {
  std::string ics = interview_ics(interview(), "abc@peto", "Interview: SRE at Acme", kNow);
  ASSERT_GE(ics.size(), 2u);
  EXPECT_EQ(ics.substr(ics.size() - 2), "\r\n");
  auto lines = physical_lines(ics);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "BEGIN:VCALENDAR");
  EXPECT_EQ(lines.back(), "END:VCALENDAR");
  EXPECT_EQ(property(ics, "DTSTART"), "20270120T090000Z");
  EXPECT_EQ(property(ics, "DTEND"), "20270120T103000Z");
  EXPECT_EQ(property(ics, "DTSTAMP"), "20270115T080000Z");
  EXPECT_EQ(property(ics, "STATUS"), "CONFIRMED");
  EXPECT_EQ(property(ics, "LOCATION"), "(no LOCATION)") << "no place, no line";
}

TEST(Calendar, EndDefaultsToOneHour) {
  std::string ics = interview_ics(interview({{"ends_at", nullptr}}), "u", "t", kNow);
  EXPECT_EQ(property(ics, "DTEND"), "20270120T100000Z");
}

TEST(Calendar, CancelledInterviewsSaySo) {
  std::string ics = interview_ics(interview({{"outcome", "cancelled"}}), "u", "t", kNow);
  EXPECT_EQ(property(ics, "STATUS"), "CANCELLED");
}

TEST(Calendar, TextIsEscaped) {
  std::string ics =
      interview_ics(interview({{"place", "Room 4; Floor 2, Main St"},
                               {"notes", "Bring:\r\n- CV\\portfolio\n- ID, passport; visa"}}),
                    "u", "Interview: Dev, Ops; QA", kNow);
  EXPECT_EQ(property(ics, "SUMMARY"), "Interview: Dev\\, Ops\\; QA");
  EXPECT_EQ(property(ics, "LOCATION"), "Room 4\\; Floor 2\\, Main St");
  EXPECT_EQ(property(ics, "DESCRIPTION"), "Bring:\\n- CV\\\\portfolio\\n- ID\\, passport\\; visa");
}

TEST(Calendar, LongLinesFoldAt75OctetsBetweenCharacters) {
  // Every width of character, at every offset against the fold.
  for (const std::string unit : {"a", "é", "€", "😀"}) {
    for (std::size_t lead = 0; lead < 4; ++lead) {
      std::string text(lead, 'x');
      for (int i = 0; i < 120; ++i) text += unit;
      std::string ics = interview_ics(interview({{"notes", text}}), "u", "Title", kNow);
      for (const std::string& line : physical_lines(ics)) {
        EXPECT_LE(line.size(), 75u) << unit << " lead " << lead;
        EXPECT_TRUE(valid_utf8(line))
            << "a character split across lines: " << unit << " lead " << lead;
      }
      EXPECT_EQ(property(ics, "DESCRIPTION"), text) << "unfolding gives the text back";
    }
  }
  std::string ics = interview_ics(interview({{"notes", std::string(200, 'n')}}), "u", "t", kNow);
  bool folded = false;
  for (const std::string& line : physical_lines(ics)) folded |= !line.empty() && line[0] == ' ';
  EXPECT_TRUE(folded);
  for (const std::string& line : physical_lines(ics))
    if (line.rfind("DESCRIPTION:", 0) == 0) {
      EXPECT_GE(line.size(), 74u) << "lines are filled";
    }
}

TEST(Calendar, UidIsTheInterviewsOwnAndStable) {
  std::string first = interview_ics(interview(), "k3j4h5@peto", "Interview: SRE at Acme", kNow);
  std::string moved = interview_ics(
      interview({{"starts_at", kStart + 86400000}, {"ends_at", nullptr}, {"place", "Video call"}}),
      "k3j4h5@peto", "Interview: SRE II at Acme", kNow + 1000);
  EXPECT_EQ(property(first, "UID"), "k3j4h5@peto");
  EXPECT_EQ(property(moved, "UID"), property(first, "UID"))
      << "re-importing updates the same calendar entry";
  EXPECT_EQ(interview_ics(interview(), "k3j4h5@peto", "Interview: SRE at Acme", kNow), first)
      << "the same interview gives the same file";
}

}  // namespace
}  // namespace peto::domain
