// CalendarFeeds on both backends: one address per account, only its hash
// stored, replaced and revoked addresses dead, inactive accounts refused, and
// render() holding the owner's interviews and open reminders only.
#include "sync/feed.h"

#include <gtest/gtest.h>

#include <chrono>

#include "core/token.h"
#include "domain/applications.h"
#include "formats/ical.h"
#include "tests/support/domain_fixture.h"

namespace peto::sync {
using namespace ::peto::formats;
using namespace ::peto::domain;
namespace {

using nlohmann::json;

class CalendarFeedsTest : public peto::testing::TwoOwnersTest {
 protected:
  json make(std::int64_t owner, const std::string& kind, json values) {
    domain::Input in;
    in.values = std::move(values);
    in.from_form = false;
    auto made = records().create(owner, domain::kind(kind), in);
    EXPECT_TRUE(std::holds_alternative<domain::Record>(made)) << kind;
    return std::holds_alternative<domain::Record>(made) ? std::get<domain::Record>(made) : json();
  }

  // An interview for `role` and a reminder of `owner`.
  void calendar_of(std::int64_t owner, const std::string& role) {
    json company = make(owner, "companies", {{"name", "Acme"}});
    json listing = make(owner, "listings", {{"role", role}, {"company_id", company["id"]}});
    domain::Applications apps(records());
    auto applied = apps.apply(owner, listing["id"].get<std::int64_t>(), "applied");
    json app = std::get<domain::Record>(applied)["id"];
    make(owner, "interviews", {{"application_id", app}, {"starts_at", clock_.now_ms() + 86400000}});
    make(owner, "reminders", {{"title", "Follow up " + role}, {"due_at", clock_.now_ms()}});
  }
};

TEST_P(CalendarFeedsTest, OneAddressPerAccountStoredAsItsHash) {
  CalendarFeeds feeds(db(), clock_);
  EXPECT_FALSE(feeds.exists(owner_));
  EXPECT_FALSE(feeds.revoke(owner_)) << "nothing to revoke";
  std::string token = feeds.create(owner_);
  EXPECT_EQ(token.size(), 64u);
  EXPECT_TRUE(feeds.exists(owner_));
  EXPECT_EQ(feeds.created_at(owner_), clock_.now_ms());
  EXPECT_EQ(feeds.owner_of(token), owner_);
  auto stored = db().query("SELECT token_hash FROM calendar_feeds WHERE owner_id = ?", {owner_});
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].text(0), sha256_hex(token));
  EXPECT_EQ(db().query("SELECT 1 FROM calendar_feeds WHERE token_hash = ?", {token}).size(), 0u)
      << "the token itself is never stored";

  std::string other = feeds.create(other_);
  EXPECT_EQ(feeds.owner_of(other), other_);

  std::string replaced = feeds.create(owner_);
  EXPECT_NE(replaced, token);
  EXPECT_FALSE(feeds.owner_of(token)) << "the old address is dead";
  EXPECT_EQ(feeds.owner_of(replaced), owner_);
  EXPECT_EQ(count("calendar_feeds"), 2);

  EXPECT_TRUE(feeds.revoke(owner_));
  EXPECT_FALSE(feeds.owner_of(replaced));
  EXPECT_FALSE(feeds.exists(owner_));
  EXPECT_EQ(feeds.owner_of(other), other_) << "someone else's stays";

  for (const std::string& junk :
       {std::string(), std::string("x"), std::string(64, 'z'), sha256_hex(other), other.substr(1)})
    EXPECT_FALSE(feeds.owner_of(junk)) << junk;
}

TEST_P(CalendarFeedsTest, InactiveAccountsHaveNoFeed) {
  CalendarFeeds feeds(db(), clock_);
  std::string token = feeds.create(owner_);
  domain::Accounts(db(), clock_).set_active(owner_, false);
  EXPECT_FALSE(feeds.owner_of(token));
  domain::Accounts(db(), clock_).set_active(owner_, true);
  EXPECT_EQ(feeds.owner_of(token), owner_);
}

TEST_P(CalendarFeedsTest, RenderHoldsTheOwnersInterviewsAndOpenRemindersOnly) {
  calendar_of(owner_, "Data engineer");
  calendar_of(other_, "Someone else");
  CalendarFeeds feeds(db(), clock_);
  std::string ics = feeds.render(owner_);
  EXPECT_NE(ics.find("SUMMARY:Interview: Data engineer at Acme\r\n"), std::string::npos) << ics;
  EXPECT_NE(ics.find("SUMMARY:Follow up Data engineer\r\n"), std::string::npos);
  EXPECT_EQ(ics.find("Someone else"), std::string::npos);
  std::size_t events = 0;
  for (auto at = ics.find("BEGIN:VEVENT"); at != std::string::npos;
       at = ics.find("BEGIN:VEVENT", at + 1))
    ++events;
  EXPECT_EQ(events, 2u);
  EXPECT_EQ(ics.find("VTODO"), std::string::npos) << "subscribers get events";

  clock_.advance(std::chrono::minutes(5));
  db().query("UPDATE reminders SET done_at = ? WHERE owner_id = ?", {clock_.now_ms(), owner_});
  std::string later = feeds.render(owner_);
  EXPECT_EQ(later.find("Follow up"), std::string::npos) << "a done reminder leaves the feed";
  auto read = read_calendar(later, "UTC");
  ASSERT_TRUE(std::holds_alternative<CalItem>(read)) << std::get<std::string>(read);
  EXPECT_EQ(std::get<CalItem>(read).summary, "Interview: Data engineer at Acme");
  EXPECT_EQ(feeds.render(other_).find("Data engineer"), std::string::npos);
}

// A reminder due on a day is an all-day event; one without a date has no
// place on a calendar.
TEST_P(CalendarFeedsTest, AllDayRemindersAreDaysAndUndatedOnesStayOut) {
  make(owner_, "reminders", {{"title", "Forms due"}, {"due_on", "2027-01-21"}});
  make(owner_, "reminders", {{"title", "Someday"}});
  std::string ics = CalendarFeeds(db(), clock_).render(owner_);
  EXPECT_NE(ics.find("DTSTART;VALUE=DATE:20270121\r\n"), std::string::npos) << ics;
  EXPECT_NE(ics.find("DTEND;VALUE=DATE:20270122\r\n"), std::string::npos) << ics;
  EXPECT_EQ(ics.find("Someday"), std::string::npos) << ics;
}

PETO_BOTH_BACKENDS(CalendarFeedsTest);

}  // namespace
}  // namespace peto::sync
