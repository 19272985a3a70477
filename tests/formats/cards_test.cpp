// Cards: interviews, reminders and contacts written as iCalendar and vCard
// and read back, including what real servers send (folded lines, TZID,
// floating and all-day times, vCard 3 and 4 with groups) and junk.
#include "domain/cards.h"
#include "formats/ical.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/utf8.h"

namespace peto::formats {
using namespace ::peto::domain;
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
  // All day: the day, which starts at midnight where the reader is.
  CalItem all_day = read_ok(event_with("DTSTART;VALUE=DATE:20270120", "DTEND;VALUE=DATE:20270121"));
  EXPECT_EQ(all_day.day, "2027-01-20");
  EXPECT_EQ(all_day.start, *parse_time("2027-01-20T00:00:00Z"));
  EXPECT_EQ(all_day.end, *parse_time("2027-01-21T00:00:00Z"));
  CalItem west = read_ok(event_with("DTSTART;VALUE=DATE:20270120", "DTEND;VALUE=DATE:20270121"),
                         "America/Los_Angeles");
  EXPECT_EQ(west.day, "2027-01-20");
  EXPECT_EQ(west.start, *parse_time("2027-01-20T08:00:00Z"));
  EXPECT_EQ(read_ok(event_with("DTSTART:20270120")).day, "2027-01-20");
  EXPECT_EQ(read_ok(event_with("DTSTART:20270120T100000Z")).day, "") << "a time is no day";
  // A value cut for the message is cut between characters.
  std::string accents = "DTSTART:x";
  for (int i = 0; i < 30; ++i) accents += "é";
  auto cut = read_calendar(event_with(accents), "UTC");
  ASSERT_TRUE(std::holds_alternative<std::string>(cut));
  EXPECT_NO_THROW((void)json(std::get<std::string>(cut)).dump()) << std::get<std::string>(cut);
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
  EXPECT_TRUE(v["due_at"].is_null()) << "no DUE: a reminder without a date";
  EXPECT_TRUE(v["due_on"].is_null());
  EXPECT_EQ(v["title"], "Send thank-you note");
  std::string with_due = todo;
  with_due.replace(with_due.find("STATUS"), 0, "DUE;VALUE=DATE:20270125\r\n");
  EXPECT_EQ(read_ok(with_due).completed, *parse_time("2027-01-25T00:00:00Z"))
      << "STATUS:COMPLETED alone: the due time";
  json dated = reminder_values(read_ok(with_due, "Asia/Tokyo"));
  EXPECT_EQ(dated["due_on"], "2027-01-25") << "a DATE is a day, whatever the zone";
  EXPECT_FALSE(dated.contains("due_at")) << "peto derives the time from the day";
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
// item whose record values are valid JSON text (dump() throws on bad UTF-8),
// and merging peto's text into one gives a text that reads, or peto's.
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
                                           std::string(1, '\0')};
  std::mt19937 rng(20270115);
  int merges = 0;  // mutated texts a merge went into
  for (int round = 0; round < 4000; ++round) {
    std::size_t seed = rng() % seeds.size();
    std::string text = seeds[seed];
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
        (void)json(std::get<std::string>(cal)).dump();
      }
      auto card = read_card(text);
      if (auto* c = std::get_if<Card>(&card))
        (void)contact_values(*c).dump();
      else
        (void)json(std::get<std::string>(card)).dump();
      // The mutated text as the server's: the merge is readable or ours.
      // peto's own text of the same type (seeds 1 to 3 are peto's).
      const std::string& ours = seeds[seed == 0 ? 1 : std::min<std::size_t>(seed, 3)];
      std::string merged = merge_member(text, ours);
      if (merged != ours) {
        ++merges;
        bool reads = ours.rfind("BEGIN:VCARD", 0) == 0
                         ? std::holds_alternative<Card>(read_card(merged))
                         : std::holds_alternative<CalItem>(read_calendar(merged, "UTC"));
        EXPECT_TRUE(reads) << merged;
      }
    }) << text;
  }
  EXPECT_GT(merges, 200) << "the merge saw many mutated texts it could read";
}

// ---- Merging peto's text into the server's ----

// Lines end in CRLF only, and none passes 75 octets.
void expect_crlf_folded(const std::string& text) {
  for (std::size_t at = 0, next; at < text.size(); at = next + 2) {
    next = text.find("\r\n", at);
    ASSERT_NE(next, std::string::npos) << "ends in CRLF";
    std::string_view line(text.data() + at, next - at);
    EXPECT_EQ(line.find('\n'), std::string_view::npos) << "no bare LF: " << line;
    EXPECT_LE(line.size(), 75u) << line;
  }
}

std::string unfolded(std::string text) {
  for (std::size_t at; (at = text.find("\r\n ")) != std::string::npos;) text.erase(at, 3);
  return text;
}

bool has_line(const std::string& text, const std::string& line) {
  std::string u = "\r\n" + unfolded(text);
  return u.find("\r\n" + line + "\r\n") != std::string::npos;
}

TEST(Cards, AllDayItemsAreWrittenAsDates) {
  json reminder = {{"title", "Deadline"}, {"due_at", kStart}, {"due_on", "2027-01-20"}};
  std::string todo = write_calendar({reminder_item(reminder, "r")}, kNow);
  EXPECT_TRUE(has_line(todo, "DUE;VALUE=DATE:20270120")) << todo;
  EXPECT_EQ(todo.find("DUE:"), std::string::npos) << todo;
  json undated = {{"title", "Someday"}, {"due_at", nullptr}, {"due_on", nullptr}};
  std::string open = write_calendar({reminder_item(undated, "u")}, kNow);
  EXPECT_EQ(open.find("DUE"), std::string::npos) << "a task without a date has no DUE";
  EXPECT_TRUE(read_ok(open).due == std::nullopt);

  json interview = {{"starts_at", kStart}, {"starts_on", "2027-12-31"}, {"place", "Acme"}};
  std::string event = write_calendar({interview_item(interview, "i", "Interview")}, kNow);
  EXPECT_TRUE(has_line(event, "DTSTART;VALUE=DATE:20271231")) << event;
  EXPECT_TRUE(has_line(event, "DTEND;VALUE=DATE:20280101")) << "the next day: DTEND is exclusive";
  json back = interview_values(read_ok(event, "Pacific/Auckland"));
  EXPECT_EQ(back["starts_on"], "2027-12-31");
  EXPECT_FALSE(back.contains("starts_at"));
}

// As Apple Calendar and Thunderbird write one: LF line ends here.
const std::string kServerEvent =
    "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Apple Inc.//macOS 14//EN\nBEGIN:VTIMEZONE\n"
    "TZID:Europe/Paris\nX-LIC-LOCATION:Europe/Paris with a long tail that is folded by the\n"
    "  server\nBEGIN:STANDARD\nDTSTART:19701025T030000\nTZOFFSETFROM:+0200\nTZOFFSETTO:+0100\n"
    "END:STANDARD\nEND:VTIMEZONE\nBEGIN:VEVENT\nUID:server-made-0001\n"
    "DTSTAMP:20270101T000000Z\nDTSTART;TZID=Europe/Paris:20270120T100000\nDURATION:PT1H\n"
    "summary;LANGUAGE=en:Old title\nLOCATION:Old room\nRRULE:FREQ=WEEKLY;COUNT=3\n"
    "ATTENDEE;CN=\"Ana Silva\";ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:ana@example.\n"
    " org\nCATEGORIES:Work,Jobs\nitem1.X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-TITLE=Acme:ge\n"
    " o:38.7,-9.1\nX-MOZ-GENERATION:3\nBEGIN:VALARM\nACTION:DISPLAY\nDESCRIPTION:Reminder\n"
    "TRIGGER:-PT15M\nEND:VALARM\nEND:VEVENT\nBEGIN:VEVENT\nUID:other\nSUMMARY:Old title\n"
    "DTSTART:20270101T100000Z\nEND:VEVENT\nEND:VCALENDAR\n";

CalItem new_interview(const std::string& place) {
  json interview = {{"starts_at", kStart + 86400000},
                    {"ends_at", kStart + 86400000 + 5400000},
                    {"place", place},
                    {"notes", awkward()}};
  return interview_item(interview, "peto-interview-1-2", "Interview: Backend engineer");
}

TEST(Cards, MergeKeepsWhatPetoDoesNotWrite) {
  CalItem item = new_interview("Room 4");
  std::string ours = write_calendar({item}, kNow);
  std::string merged = merge_member(kServerEvent, ours);
  expect_crlf_folded(merged);
  // Kept: other properties with their parameters and groups, sub-components
  // and other components byte for byte.
  for (std::string kept :
       {"UID:server-made-0001", "RRULE:FREQ=WEEKLY;COUNT=3",
        "ATTENDEE;CN=\"Ana Silva\";ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:ana@example.org",
        "CATEGORIES:Work,Jobs",
        "item1.X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-TITLE=Acme:geo:38.7,-9.1",
        "X-MOZ-GENERATION:3", "PRODID:-//Apple Inc.//macOS 14//EN"})
    EXPECT_TRUE(has_line(merged, kept)) << kept;
  EXPECT_NE(merged.find("BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nX-LIC-LOCATION:Europe/Paris with "
                        "a long tail that is folded by the\r\n  server\r\nBEGIN:STANDARD\r\n"),
            std::string::npos)
      << "another component's lines as they were";
  EXPECT_NE(
      merged.find("BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER:-PT15M\r\n"
                  "END:VALARM\r\n"),
      std::string::npos);
  EXPECT_NE(merged.find("BEGIN:VEVENT\r\nUID:other\r\nSUMMARY:Old title\r\n"), std::string::npos)
      << "only the first event is peto's";
  // Replaced: peto's properties, in their place; new ones before the alarm.
  EXPECT_TRUE(has_line(merged, "SUMMARY:Interview: Backend engineer"));
  EXPECT_TRUE(has_line(merged, "LOCATION:Room 4"));
  EXPECT_TRUE(has_line(merged, "DTSTART:20270121T090000Z"));
  EXPECT_TRUE(has_line(merged, "DTSTAMP:20270115T080000Z"));
  EXPECT_FALSE(has_line(merged, "DTSTAMP:20270101T000000Z"));
  EXPECT_EQ(merged.find("Old room"), std::string::npos);
  EXPECT_EQ(merged.find("summary;LANGUAGE"), std::string::npos);
  EXPECT_EQ(merged.find("DURATION"), std::string::npos) << "DTEND and DURATION never both";
  EXPECT_TRUE(has_line(merged, "DTEND:20270121T103000Z"));
  EXPECT_LT(merged.find("DESCRIPTION:Room 4\\; Floor"), merged.find("BEGIN:VALARM"));
  EXPECT_EQ(merged.find("peto-interview"), std::string::npos) << "the server's UID stays";
  // Read back: peto's values and the server's UID.
  CalItem back = read_ok(merged);
  item.uid = "server-made-0001";
  expect_same(back, item);
  EXPECT_EQ(merge_member(merged, ours), merged) << "merging again changes nothing";
  // A place emptied in peto leaves the server's text.
  std::string no_place = write_calendar({new_interview("")}, kNow);
  std::string emptied = merge_member(merged, no_place);
  EXPECT_EQ(emptied.find("\nLOCATION"), std::string::npos);
  EXPECT_TRUE(has_line(emptied, "RRULE:FREQ=WEEKLY;COUNT=3"));
  EXPECT_EQ(read_ok(emptied).location, "");
  EXPECT_EQ(merge_member(emptied, no_place), emptied);
}

TEST(Cards, MergeTodoProgressGoesWithItsStatus) {
  std::string server =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Nextcloud Tasks//EN\r\nBEGIN:VTODO\r\n"
      "UID:peto-reminder-1-2\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:Old\r\n"
      "DESCRIPTION:kept: peto does not write a reminder's\r\nSTATUS:IN-PROCESS\r\n"
      "PERCENT-COMPLETE:40\r\nDUE;VALUE=DATE:20270125\r\nPRIORITY:1\r\nEND:VTODO\r\n"
      "END:VCALENDAR\r\n";
  json reminder = {{"title", "Call back"}, {"due_at", kStart}, {"done_at", kStart + 60000}};
  std::string ours = write_calendar({reminder_item(reminder, "peto-reminder-1-2")}, kNow);
  std::string merged = merge_member(server, ours);
  EXPECT_TRUE(has_line(merged, "STATUS:COMPLETED"));
  EXPECT_EQ(merged.find("PERCENT-COMPLETE"), std::string::npos) << "the status changed";
  EXPECT_TRUE(has_line(merged, "DESCRIPTION:kept: peto does not write a reminder's"));
  EXPECT_TRUE(has_line(merged, "PRIORITY:1"));
  EXPECT_TRUE(has_line(merged, "DUE:20270120T090000Z"));
  CalItem back = read_ok(merged);
  EXPECT_EQ(back.summary, "Call back");
  EXPECT_EQ(back.due, kStart);
  EXPECT_EQ(back.completed, kStart + 60000);
  EXPECT_EQ(merge_member(merged, ours), merged);
  // The same status keeps the progress.
  std::string open = server;
  open.replace(open.find("IN-PROCESS"), 10, "NEEDS-ACTION");
  reminder["done_at"] = nullptr;
  std::string still = merge_member(open, write_calendar({reminder_item(reminder, "x")}, kNow));
  EXPECT_TRUE(has_line(still, "PERCENT-COMPLETE:40"));
  EXPECT_TRUE(has_line(still, "UID:peto-reminder-1-2"));
  // A task timed by DTSTART and DURATION gets peto's DUE instead: never both.
  std::string timed = open;
  timed.replace(timed.find("DUE;VALUE=DATE:20270125"), 23,
                "DTSTART:20270118T090000Z\r\nDURATION:PT2H");
  std::string due = merge_member(timed, write_calendar({reminder_item(reminder, "x")}, kNow));
  EXPECT_TRUE(has_line(due, "DUE:20270120T090000Z")) << due;
  EXPECT_EQ(due.find("DURATION"), std::string::npos) << due;
}

const std::string kServerCard =
    "BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:-//Sabre//Sabre VObject 4.4.2//EN\r\n"
    "UID:4f0e5a7c-1d2b\r\nFN:Ana Silva\r\nN:Silva;Ana;;;\r\nORG:Acme\\, Inc.;Engineering\r\n"
    "TITLE:Engineering Manager\r\nitem1.EMAIL;type=INTERNET:ana.home@example.org\r\n"
    "item2.EMAIL;type=INTERNET;type=pref:ana@acme.example\r\nitem2.X-ABLabel:Work\r\n"
    "TEL;TYPE=CELL:+351 912 345 678\r\nTEL;TYPE=HOME:+351 21 000 0000\r\n"
    "ADR;TYPE=HOME:;;Rua A 1;Lisboa;;1000-001;Portugal\r\nBDAY:1990-02-03\r\n"
    "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsL\r\n"
    " DBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgN\r\n"
    "NOTE:Old note\r\nX-SOCIALPROFILE;type=linkedin:https://example.org/in/ana\r\nEND:VCARD\r\n";

Card new_contact() {
  Card c;
  c.uid = "peto-contact-3-5";
  c.name = "Ana Silva-Costa";
  c.email = "ana.costa@acme.example";
  c.phone = "+44 20 7946 0000";
  c.role = "Head of People";
  c.organisation = "Acme, Inc.";
  c.notes = "New note";
  return c;
}

TEST(Cards, MergeCardKeepsAddressesPhotoAndMore) {
  Card card = new_contact();
  std::string ours = write_card(card);
  std::string merged = merge_member(kServerCard, ours);
  expect_crlf_folded(merged);
  for (std::string kept :
       {"UID:4f0e5a7c-1d2b", "item1.EMAIL;type=INTERNET:ana.home@example.org",
        "item2.X-ABLabel:Work", "TEL;TYPE=HOME:+351 21 000 0000",
        "ADR;TYPE=HOME:;;Rua A 1;Lisboa;;1000-001;Portugal", "BDAY:1990-02-03",
        "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsL"
        "DBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgN",
        "X-SOCIALPROFILE;type=linkedin:https://example.org/in/ana", "VERSION:3.0"})
    EXPECT_TRUE(has_line(merged, kept)) << kept;
  // The preferred address and the first number take peto's, with their
  // own group and parameters.
  EXPECT_TRUE(has_line(merged, "item2.EMAIL;type=INTERNET;type=pref:ana.costa@acme.example"));
  EXPECT_TRUE(has_line(merged, "TEL;TYPE=CELL:+44 20 7946 0000"));
  EXPECT_TRUE(has_line(merged, "FN:Ana Silva-Costa"));
  EXPECT_TRUE(has_line(merged, "TITLE:Head of People"));
  EXPECT_EQ(merged.find("Old note"), std::string::npos);
  EXPECT_EQ(merged.find("peto-contact"), std::string::npos);
  Card back = card_ok(merged);
  EXPECT_EQ(back.uid, "4f0e5a7c-1d2b");
  EXPECT_EQ(back.name, card.name);
  EXPECT_EQ(back.email, card.email);
  EXPECT_EQ(back.phone, card.phone);
  EXPECT_EQ(back.role, card.role);
  EXPECT_EQ(back.organisation, card.organisation);
  EXPECT_EQ(back.notes, card.notes);
  EXPECT_EQ(merge_member(merged, ours), merged);
}

TEST(Cards, MergeCardAddressRules) {
  Card card = new_contact();
  // peto's value already among theirs (other case, other spacing): all kept.
  card.email = "ANA.HOME@example.org";
  card.phone = "+351-21-000-0000";
  std::string same = merge_member(kServerCard, write_card(card));
  EXPECT_TRUE(has_line(same, "item1.EMAIL;type=INTERNET:ana.home@example.org"));
  EXPECT_TRUE(has_line(same, "item2.EMAIL;type=INTERNET;type=pref:ana@acme.example"));
  EXPECT_TRUE(has_line(same, "TEL;TYPE=CELL:+351 912 345 678"));
  EXPECT_TRUE(has_line(same, "TEL;TYPE=HOME:+351 21 000 0000"));
  EXPECT_EQ(same.find("ANA.HOME"), std::string::npos);
  // Emptied in peto: theirs' preferred one goes, the others stay.
  card.email = "";
  card.phone = "";
  std::string emptied = merge_member(kServerCard, write_card(card));
  EXPECT_TRUE(has_line(emptied, "item1.EMAIL;type=INTERNET:ana.home@example.org"));
  EXPECT_EQ(emptied.find("ana@acme.example"), std::string::npos);
  EXPECT_EQ(emptied.find("912 345"), std::string::npos) << "no TEL is marked: the first";
  EXPECT_TRUE(has_line(emptied, "TEL;TYPE=HOME:+351 21 000 0000"));
  // None there: peto's added, before the END.
  std::string bare = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:u\r\nFN:Jean\r\nEND:VCARD\r\n";
  card.email = "jean@example.fr";
  card.phone = "+33 6 00";
  std::string added = merge_member(bare, write_card(card));
  EXPECT_TRUE(has_line(added, "EMAIL;TYPE=INTERNET:jean@example.fr"));
  EXPECT_TRUE(has_line(added, "TEL:+33 6 00"));
  EXPECT_TRUE(has_line(added, "UID:u"));
  EXPECT_EQ(merge_member(added, write_card(card)), added);
  // vCard 4: PREF=1 marks the preferred; a tel: URI stays one.
  std::string v4 =
      "BEGIN:VCARD\nVERSION:4.0\nUID:urn:uuid:0b5f\nFN:Jean Dupont\n"
      "EMAIL;TYPE=work:jean@example.fr\nEMAIL;PREF=1;TYPE=home:jean.d@example.fr\n"
      "TEL;VALUE=uri;TYPE=\"voice,cell\":tel:+33-6-12-34-56-78\nROLE:Recruiter\n"
      "TITLE:Talent lead\nEND:VCARD\n";
  card.email = "jd@example.fr";
  card.phone = "+33 7 00 00 00 00";
  card.role = "Hiring manager";
  std::string ours = write_card(card);
  std::string merged = merge_member(v4, ours);
  EXPECT_TRUE(has_line(merged, "EMAIL;TYPE=work:jean@example.fr"));
  EXPECT_TRUE(has_line(merged, "EMAIL;PREF=1;TYPE=home:jd@example.fr"));
  EXPECT_TRUE(has_line(merged, "TEL;VALUE=uri;TYPE=\"voice,cell\":tel:+33 7 00 00 00 00"));
  EXPECT_TRUE(has_line(merged, "ROLE:Hiring manager")) << "peto reads ROLE before TITLE";
  Card back = card_ok(merged);
  EXPECT_EQ(back.email, "jd@example.fr");
  EXPECT_EQ(back.phone, "+33 7 00 00 00 00");
  EXPECT_EQ(back.role, "Hiring manager");
  EXPECT_EQ(merge_member(merged, ours), merged);
  card.phone = "+33 (7) 00-00-00-00";
  EXPECT_EQ(merge_member(merged, write_card(card)).find("(7)"), std::string::npos)
      << "the same digits: kept as the server has it";
}

TEST(Cards, MergeIntoWhatCannotBeReadIsOurs) {
  std::string event = write_calendar({new_interview("x")}, kNow);
  std::string todo =
      write_calendar({reminder_item({{"title", "t"}, {"due_at", kStart}}, "r")}, kNow);
  std::string card = write_card(new_contact());
  std::string binary("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  for (const std::string& theirs : std::vector<std::string>{
           std::string(), std::string("<html><body>Login</body></html>"), binary,
           kServerEvent.substr(0, kServerEvent.size() / 2), todo, card,
           "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:\xed\xa0\x80\r\nEND:VEVENT\r\nEND:"
           "VCALENDAR\r\n",
           // A property peto does not write, unreadable: the merge would be too.
           "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDUE:soon\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"}) {
    EXPECT_EQ(merge_member(theirs, event), event) << theirs.substr(0, 40);
  }
  EXPECT_EQ(merge_member(kServerEvent, todo), todo) << "a VTODO does not go into a VEVENT";
  EXPECT_EQ(merge_member(kServerEvent, card), card);
  EXPECT_EQ(merge_member(kServerCard, event), event);
  EXPECT_EQ(merge_member(kServerCard, "junk"), "junk");
}

// N holds the name in its parts, so an address book sorts by family name;
// FN keeps the name as written, and a card with N alone reads whole.
TEST(Cards, TheStructuredNameSplitsGivenAndFamily) {
  auto n_of = [](const std::string& name) {
    Card card;
    card.uid = "u";
    card.name = name;
    std::string text = write_card(card);
    auto at = text.find("\r\nN:") + 4;
    return text.substr(at, text.find("\r\n", at) - at);
  };
  EXPECT_EQ(n_of("Ada Lovelace"), "Lovelace;Ada;;;");
  EXPECT_EQ(n_of("  Ada  King   Lovelace "), "Lovelace;Ada;King;;");
  EXPECT_EQ(n_of("Zoe"), ";Zoe;;;");
  EXPECT_EQ(n_of("Ana; Jr"), "Jr;Ana\\;;;;");
  EXPECT_EQ(card_ok("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:x\r\nN:Lovelace;Ada;King;;\r\n"
                    "END:VCARD\r\n")
                .name,
            "Ada King Lovelace");
}

}  // namespace
}  // namespace peto::formats
