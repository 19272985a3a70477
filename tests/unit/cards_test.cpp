// Cards: interviews, reminders and contacts written as iCalendar and vCard
// and read back, including what real servers send (folded lines, TZID,
// floating and all-day times, vCard 3 and 4 with groups) and junk.
#include "sync/cards.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/utf8.h"

namespace peto::sync {
namespace {

using nlohmann::json;

const std::int64_t kStart = *parse_time("2027-01-20T09:00:00Z");
const std::int64_t kNow = *parse_time("2027-01-15T08:00:00Z");

// Text with everything that needs escaping, a bare CR, and long UTF-8.
std::string awkward() {
  std::string s = "Room 4; Floor 2, Main St\\annex\nsecond line\\n not a newline, ;;\n";
  for (int i = 0; i < 60; ++i) s += "é€😀";
  return s;
}

CalItem read_ok(const std::string& text, const std::string& zone = "UTC") {
  auto r = read_calendar(text, zone);
  if (auto* e = std::get_if<std::string>(&r)) {
    ADD_FAILURE() << "refused: " << *e;
    return {};
  }
  return std::get<CalItem>(r);
}

Card card_ok(const std::string& text) {
  auto r = read_card(text);
  if (auto* e = std::get_if<std::string>(&r)) {
    ADD_FAILURE() << "refused: " << *e;
    return {};
  }
  return std::get<Card>(r);
}

void expect_same(const CalItem& a, const CalItem& b) {
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.uid, b.uid);
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_EQ(a.location, b.location);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.due, b.due);
  EXPECT_EQ(a.completed, b.completed);
  EXPECT_EQ(a.cancelled, b.cancelled);
}

TEST(Cards, InterviewRoundTrip) {
  json interview = {{"id", 7},
                    {"starts_at", kStart},
                    {"ends_at", kStart + 5400000},
                    {"place", awkward()},
                    {"notes", awkward() + awkward()},
                    {"outcome", "cancelled"},
                    {"uid", "k3j4,h5;@peto"}};
  CalItem item = interview_item(interview, record_uid("interviews", interview),
                                "Interview: Dev, Ops; QA\\R&D");
  EXPECT_EQ(item.uid, "k3j4,h5;@peto") << "an interview's own uid";
  EXPECT_TRUE(item.cancelled);
  std::string ics = write_calendar({item}, kNow);
  for (std::size_t at = 0, next; at < ics.size(); at = next + 2) {
    next = ics.find("\r\n", at);
    ASSERT_NE(next, std::string::npos);
    EXPECT_LE(next - at, 75u) << "folded at 75 octets";
  }
  CalItem back = read_ok(ics, "Europe/Paris");
  expect_same(back, item);
  json values = interview_values(back);
  EXPECT_EQ(values["starts_at"], kStart);
  EXPECT_EQ(values["ends_at"], kStart + 5400000);
  EXPECT_EQ(values["place"].get<std::string>().size(), awkward().size())
      << "place fits in 500 characters";
  EXPECT_EQ(values["notes"], awkward() + awkward());
  EXPECT_FALSE(values.contains("title")) << "peto's own title is never read back";
}

TEST(Cards, InterviewWithoutEndLastsAnHour) {
  CalItem item = interview_item({{"starts_at", kStart},
                                 {"ends_at", nullptr},
                                 {"place", nullptr},
                                 {"notes", nullptr},
                                 {"outcome", "scheduled"}},
                                "u", "t");
  EXPECT_EQ(item.end, kStart + 3600000);
  EXPECT_FALSE(item.cancelled);
  json values = interview_values(read_ok(write_calendar({item}, kNow)));
  EXPECT_TRUE(values["place"].is_null());
  EXPECT_TRUE(values["notes"].is_null());
}

TEST(Cards, ReminderRoundTrip) {
  json open = {{"id", 12},
               {"created_at", 1767225600000},
               {"title", awkward() + awkward()},
               {"due_at", kStart},
               {"done_at", nullptr}};
  EXPECT_EQ(record_uid("reminders", open), "peto-reminder-12-1767225600000");
  CalItem item = reminder_item(open, record_uid("reminders", open));
  EXPECT_EQ(item.type, CalItem::Type::todo);
  std::string ics = write_calendar({item}, kNow);
  EXPECT_NE(ics.find("STATUS:NEEDS-ACTION\r\n"), std::string::npos);
  CalItem back = read_ok(ics);
  expect_same(back, item);
  json values = reminder_values(back);
  EXPECT_EQ(values["due_at"], kStart);
  EXPECT_TRUE(values["done_at"].is_null());
  std::string title = values["title"];
  EXPECT_EQ(utf8_length(title), 250u) << "cut to the title's 250 characters";
  EXPECT_EQ((awkward() + awkward()).rfind(title, 0), 0u) << "a prefix, cut between characters";

  json done = open;
  done["done_at"] = kStart + 60000;
  done["title"] = "Call back";
  CalItem finished = read_ok(write_calendar({reminder_item(done, "r")}, kNow));
  EXPECT_EQ(finished.completed, kStart + 60000);
  EXPECT_EQ(reminder_values(finished)["done_at"], kStart + 60000);
  EXPECT_EQ(reminder_values(finished)["title"], "Call back");
}

TEST(Cards, ContactRoundTrip) {
  json contact = {{"id", 3},
                  {"created_at", 5},
                  {"name", "Ana Lúcia, Ståhl; Jr"},
                  {"email", "ana@example.org"},
                  {"phone", "+351 21 000"},
                  {"role", "CTO; hiring"},
                  {"company_name", "Acme, Inc."},
                  {"notes", awkward()}};
  Card card = contact_card(contact, record_uid("contacts", contact));
  EXPECT_EQ(card.uid, "peto-contact-3-5");
  std::string text = write_card(card);
  Card back = card_ok(text);
  EXPECT_EQ(back.uid, card.uid);
  EXPECT_EQ(back.name, card.name);
  EXPECT_EQ(back.email, card.email);
  EXPECT_EQ(back.phone, card.phone);
  EXPECT_EQ(back.role, card.role);
  EXPECT_EQ(back.organisation, card.organisation);
  EXPECT_EQ(back.notes, card.notes);
  json values = contact_values(back);
  EXPECT_EQ(values, (json{{"name", "Ana Lúcia, Ståhl; Jr"},
                          {"email", "ana@example.org"},
                          {"phone", "+351 21 000"},
                          {"role", "CTO; hiring"},
                          {"notes", awkward()}}));
}

TEST(Cards, ContactValuesFollowTheRecordRules) {
  Card c;
  c.name = "  Bo  ";
  c.email = "not an address";
  c.phone = std::string(60, '5');
  json v = contact_values(c);
  EXPECT_EQ(v["name"], "Bo");
  EXPECT_FALSE(v.contains("email")) << "an address that is not one is left out";
  EXPECT_EQ(v["phone"], std::string(40, '5')) << "cut to the field's 40 characters";
  EXPECT_TRUE(v["role"].is_null());
  EXPECT_TRUE(v["notes"].is_null());
  c.email = "";
  EXPECT_TRUE(contact_values(c)["email"].is_null()) << "no address clears it";
  c.name = "";
  EXPECT_FALSE(contact_values(c).contains("name")) << "a required field is never emptied";
}

TEST(Cards, FoldedInputWithLfAndTabs) {
  std::string text =
      "begin:vcalendar\nVERSION:2.0\nBEGIN:VEVENT\nUID:abc\n 123\nSummary;LANGUAGE=en:Long "
      "summ\n\tary\\, here\nDTSTART:20270120T090000Z\nDESCRIPTION:one\\ntwo\\Nthree\\\\four\\;\n"
      "BEGIN:VALARM\nACTION:DISPLAY\nDESCRIPTION:alarm text\nTRIGGER:-PT15M\nEND:VALARM\n"
      "DURATION:PT1H30M\nX-UNKNOWN;X-P=\"a:b;c\":whatever\nEND:VEVENT\nEND:VCALENDAR\n";
  CalItem item = read_ok(text);
  EXPECT_EQ(item.uid, "abc123");
  EXPECT_EQ(item.summary, "Long summary, here");
  EXPECT_EQ(item.description, "one\ntwo\nthree\\four;") << "the VALARM's is ignored";
  EXPECT_EQ(item.start, kStart);
  EXPECT_EQ(item.end, kStart + 90 * 60000) << "DURATION instead of DTEND";
  // A writer may fold inside a character (RFC 5545 §3.1 allows it).
  CalItem split = read_ok(
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:caf\xc3\r\n "
      "\xa9\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n");
  EXPECT_EQ(split.summary, "café");
}

std::string event_with(const std::string& start_line, const std::string& end_line = "") {
  return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\n"
         "BEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nTZOFFSETFROM:+0200\r\n"
         "TZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:x\r\n" +
         start_line + "\r\n" + (end_line.empty() ? "" : end_line + "\r\n") +
         "END:VEVENT\r\nEND:VCALENDAR\r\n";
}

TEST(Cards, TimesWithZonesFloatingAndAllDay) {
  // 10:00 in Paris in January is 09:00 UTC.
  EXPECT_EQ(read_ok(event_with("DTSTART;TZID=Europe/Paris:20270120T100000")).start, kStart);
  EXPECT_EQ(read_ok(event_with("DTSTART;TZID=\"Europe/Paris\":20270120T100000")).start, kStart);
  EXPECT_EQ(read_ok(event_with("DTSTART;TZID=/mozilla.org/20050126_1/Europe/Paris:20270120T100000"))
                .start,
            kStart)
      << "a vendor prefix before the zone name";
  // Summer time: 10:00 in Paris in July is 08:00 UTC.
  EXPECT_EQ(read_ok(event_with("DTSTART;TZID=Europe/Paris:20270720T100000")).start,
            *parse_time("2027-07-20T08:00:00Z"));
  // Floating: read in the account's zone.
  EXPECT_EQ(read_ok(event_with("DTSTART:20270120T040000"), "America/New_York").start, kStart);
  // An unknown TZID: read in the account's zone too.
  EXPECT_EQ(
      read_ok(event_with("DTSTART;TZID=W. Europe Standard Time:20270120T100000"), "Europe/Paris")
          .start,
      kStart);
  // All day: midnight UTC.
  CalItem all_day = read_ok(event_with("DTSTART;VALUE=DATE:20270120", "DTEND;VALUE=DATE:20270121"));
  EXPECT_EQ(all_day.start, *parse_time("2027-01-20T00:00:00Z"));
  EXPECT_EQ(all_day.end, *parse_time("2027-01-21T00:00:00Z"));
  EXPECT_EQ(read_ok(event_with("DTSTART:20270120")).start, *parse_time("2027-01-20T00:00:00Z"));
  // Not times.
  for (std::string bad : {"DTSTART:20270230T100000Z", "DTSTART:tomorrow", "DTSTART:20270120T1000",
                          "DTSTART;VALUE=DATE:20270120T100000Z", "DTSTART:20271320"}) {
    auto r = read_calendar(event_with(bad), "UTC");
    ASSERT_TRUE(std::holds_alternative<std::string>(r)) << bad;
    EXPECT_NE(std::get<std::string>(r).find("DTSTART"), std::string::npos) << bad;
  }
}

TEST(Cards, TodosAsServersSendThem) {
  std::string todo =
      "BEGIN:VCALENDAR\r\nPRODID:-//Nextcloud Tasks//EN\r\nVERSION:2.0\r\nBEGIN:VTODO\r\n"
      "UID:peto-reminder-1-2\r\nCREATED:20270101T000000Z\r\nDTSTAMP:20270121T120000Z\r\n"
      "SUMMARY:Send thank-you note\r\nSTATUS:COMPLETED\r\nPERCENT-COMPLETE:100\r\n"
      "END:VTODO\r\nEND:VCALENDAR\r\n";
  CalItem item = read_ok(todo);
  EXPECT_EQ(item.type, CalItem::Type::todo);
  EXPECT_FALSE(item.due);
  EXPECT_EQ(item.completed, *parse_time("2027-01-21T12:00:00Z"))
      << "STATUS:COMPLETED without COMPLETED or DUE: the stamp";
  json v = reminder_values(item);
  EXPECT_FALSE(v.contains("due_at")) << "no DUE keeps the reminder's due time";
  EXPECT_EQ(v["title"], "Send thank-you note");
  std::string with_due = todo;
  with_due.replace(with_due.find("STATUS"), 0, "DUE;VALUE=DATE:20270125\r\n");
  EXPECT_EQ(read_ok(with_due).completed, *parse_time("2027-01-25T00:00:00Z"))
      << "STATUS:COMPLETED alone: the due time";
}

TEST(Cards, NextcloudVcard3) {
  std::string text =
      "BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:-//Sabre//Sabre VObject 4.4.2//EN\r\n"
      "UID:4f0e5a7c-1d2b-4c3d-9e8f-0a1b2c3d4e5f\r\nFN:Ana Silva\r\nN:Silva;Ana;;;\r\n"
      "ORG:Acme\\, Inc.;Engineering\r\nTITLE:Engineering Manager\r\n"
      "item1.EMAIL;type=INTERNET:ana.home@example.org\r\n"
      "item2.EMAIL;type=INTERNET;type=pref:ana@acme.example\r\n"
      "item2.X-ABLabel:Work\r\nTEL;TYPE=CELL:+351 912 345 678\r\n"
      "NOTE:Met at the meetup\\, Lisbon.\\nFollow up in May.\r\n"
      "REV;VALUE=DATE-AND-OR-TIME:20270110T101010Z\r\nEND:VCARD\r\n";
  Card c = card_ok(text);
  EXPECT_EQ(c.uid, "4f0e5a7c-1d2b-4c3d-9e8f-0a1b2c3d4e5f");
  EXPECT_EQ(c.name, "Ana Silva");
  EXPECT_EQ(c.email, "ana@acme.example") << "the preferred address";
  EXPECT_EQ(c.phone, "+351 912 345 678");
  EXPECT_EQ(c.role, "Engineering Manager") << "TITLE when there is no ROLE";
  EXPECT_EQ(c.organisation, "Acme, Inc.");
  EXPECT_EQ(c.notes, "Met at the meetup, Lisbon.\nFollow up in May.");
}

TEST(Cards, RadicaleVcard4) {
  std::string text =
      "BEGIN:VCARD\nVERSION:4.0\nUID:urn:uuid:0b5f1e2a-3c4d\nN:Dupont;Jean;;;\n"
      "EMAIL;TYPE=work:jean@example.fr\nEMAIL;PREF=1;TYPE=home:jean.d@example.fr\n"
      "TEL;VALUE=uri;TYPE=\"voice,cell\":tel:+33-6-12-34-56-78\nROLE:Recruiter\n"
      "TITLE:Talent lead\nEND:VCARD\n";
  Card c = card_ok(text);
  EXPECT_EQ(c.uid, "urn:uuid:0b5f1e2a-3c4d");
  EXPECT_EQ(c.name, "Jean Dupont") << "N when there is no FN";
  EXPECT_EQ(c.email, "jean.d@example.fr");
  EXPECT_EQ(c.phone, "+33-6-12-34-56-78");
  EXPECT_EQ(c.role, "Recruiter");
}

TEST(Cards, JunkIsRefusedWithAMessage) {
  std::string good =
      write_calendar({reminder_item({{"title", "t"}, {"due_at", kStart}}, "u")}, kNow);
  std::string big = good;
  big.insert(big.find("SUMMARY"), "DESCRIPTION:" + std::string(2 * 1024 * 1024, 'x') + "\r\n");
  std::string binary("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  std::string many = "BEGIN:VCALENDAR\r\n";
  for (int i = 0; i < 10001; ++i) many += "X-A:b\r\n";
  std::vector<std::string> junk = {
      "",
      good.substr(0, good.find("END:VCALENDAR")),  // no END
      good.substr(0, good.find("END:VTODO")),
      big,
      binary,
      "\xff\xfe" + good,
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:\xf0\x83\x98\x80\r\nEND:VEVENT\r\nEND:"
      "VCALENDAR\r\n",
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:\xed\xa0\x80\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
      many + "END:VCALENDAR\r\n",
      "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",  // no event
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nno colon here\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nX;P=\"open:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
      " folded first\r\n" + good,
      "<html><body>Login</body></html>"};
  std::string deep = "BEGIN:VCALENDAR\r\n";
  for (int i = 0; i < 100; ++i) deep += "BEGIN:X\r\n";
  junk.push_back(deep);
  for (const std::string& text : junk) {
    auto r = read_calendar(text, "UTC");
    ASSERT_TRUE(std::holds_alternative<std::string>(r)) << text.substr(0, 60);
    EXPECT_FALSE(std::get<std::string>(r).empty());
    auto c = read_card(text);
    ASSERT_TRUE(std::holds_alternative<std::string>(c)) << text.substr(0, 60);
  }
  EXPECT_TRUE(std::holds_alternative<std::string>(read_card("BEGIN:VCARD\r\nFN:x\r\n")));
  EXPECT_TRUE(std::holds_alternative<std::string>(
      read_calendar("BEGIN:VCARD\r\nFN:x\r\nEND:VCARD\r\n", "UTC")));
  EXPECT_TRUE(std::holds_alternative<CalItem>(read_calendar(good, "UTC")));
  // Every prefix of a valid text is either refused or read, never a crash.
  for (std::size_t n = 0; n < good.size(); ++n) (void)read_calendar(good.substr(0, n), "UTC");
}

// Random edits of real texts: whatever comes back is an error message or an
// item whose record values are valid JSON text (dump() throws on bad UTF-8).
TEST(Cards, MutatedTextsNeverThrow) {
  std::vector<std::string> seeds = {
      event_with("DTSTART;TZID=Europe/Paris:20270120T100000", "DURATION:PT1H"),
      write_calendar({interview_item({{"starts_at", kStart}, {"place", awkward()}}, "u", "t")},
                     kNow),
      write_calendar({reminder_item({{"title", "é"}, {"due_at", kStart}, {"done_at", kNow}}, "r")},
                     kNow),
      write_card(contact_card({{"name", "Ana"}, {"email", "a@b.pt"}, {"notes", awkward()}}, "c")),
      "BEGIN:VCARD\nVERSION:4.0\nN:Dupont;Jean;;;\nitem1.EMAIL;PREF=1:j@x.fr\n"
      "TEL;VALUE=uri;TYPE=\"voice,cell\":tel:+33\nEND:VCARD\n"};
  const std::vector<std::string> pieces = {"\r\n",
                                           "\n ",
                                           ";",
                                           ":",
                                           "\"",
                                           "\\",
                                           ",",
                                           "=",
                                           "BEGIN:VEVENT\r\n",
                                           "END:VCALENDAR\r\n",
                                           "\xc3",
                                           "€",
                                           "Z",
                                           "T",
                                           "DTSTART;VALUE=DATE:",
                                           "\0"};
  std::mt19937 rng(20270115);
  for (int round = 0; round < 4000; ++round) {
    std::string text = seeds[rng() % seeds.size()];
    for (int edits = 1 + static_cast<int>(rng() % 6); edits > 0; --edits) {
      std::size_t at = text.empty() ? 0 : rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text.insert(at, pieces[rng() % pieces.size()]);
          break;
        case 1:
          text.erase(at, rng() % 12);
          break;
        default:
          if (!text.empty()) text[at] = static_cast<char>(rng() % 256);
      }
    }
    ASSERT_NO_THROW({
      auto cal = read_calendar(text, "Europe/Lisbon");
      if (auto* item = std::get_if<CalItem>(&cal)) {
        (void)interview_values(*item).dump();
        (void)reminder_values(*item).dump();
      } else {
        EXPECT_FALSE(std::get<std::string>(cal).empty());
      }
      auto card = read_card(text);
      if (auto* c = std::get_if<Card>(&card)) (void)contact_values(*c).dump();
    }) << text;
  }
}

}  // namespace
}  // namespace peto::sync
