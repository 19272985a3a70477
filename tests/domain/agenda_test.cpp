// The calendar's items on both backends: each kind on its day where the
// person lives, overdue reminders first, the whole-day ones before the timed
// ones of their day, another person's never; and where "snooze" leads.
#include "domain/agenda.h"

#include <gtest/gtest.h>

#include "core/timezone.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using nlohmann::json;

class AgendaTest : public peto::testing::TwoOwnersTest {
 protected:
  json make(const std::string& kind, json values, std::int64_t owner = 0) {
    Input in;
    in.values = std::move(values);
    in.time_zone = kZone;
    auto w = records().create(owner == 0 ? owner_ : owner, domain::kind(kind), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << kind;
    return std::holds_alternative<Record>(w) ? std::get<Record>(w) : json::object();
  }
  std::string id(const json& r) { return std::to_string(r["id"].get<std::int64_t>()); }
  std::vector<std::string> shown(const AgendaQuery& q, std::int64_t owner = 0) {
    std::vector<std::string> out;
    for (const AgendaItem& i : agenda(db(), owner == 0 ? owner_ : owner, q))
      out.push_back(i.day + " " + i.what + " " + i.title + (i.overdue ? " (overdue)" : ""));
    return out;
  }
  AgendaQuery january(bool with_overdue = false) const {
    AgendaQuery q;
    q.zone = kZone;
    q.from = "2027-01-15";
    q.to = "2027-02-01";
    q.now = clock_.now_ms();  // 2027-01-15T08:00Z: 00:00 in Los Angeles
    q.with_overdue = with_overdue;
    return q;
  }

  static constexpr const char* kZone = "America/Los_Angeles";
};

TEST_P(AgendaTest, EachThingOnItsDayWhereThePersonLives) {
  testing::Factory f(db(), clock_);
  auto co = f.company(owner_, "Acme");
  auto listing = f.listing(owner_, co, "SRE", {.closes_on = "2027-01-20"});
  auto other = f.listing(owner_, co, "Data engineer");
  auto app = std::to_string(f.application(owner_, other, "offer"));
  db().query("UPDATE applications SET deadline = '2027-01-18' WHERE id = ?", {std::stoll(app)});
  make("offers", {{"application_id", app}, {"answer_by", "2027-01-25"}});
  // 23:30 on the 16th in Los Angeles is the 17th in UTC: the 16th here.
  make("interviews", {{"application_id", app}, {"starts_at", "2027-01-16T23:30"}});
  make("interviews", {{"application_id", app}, {"starts_on", "2027-01-16"}});
  make("reminders", {{"title", "Call Bea"}, {"due_at", "2027-01-16T09:00"}});
  make("reminders", {{"title", "Send forms"}, {"due_on", "2027-01-16"}});
  make("reminders", {{"title", "Someday"}});
  make("reminders", {{"title", "Long ago"}, {"due_at", "2027-01-02T09:00"}});
  make("reminders", {{"title", "Not mine"}, {"due_at", "2027-01-16T09:00"}}, other_);
  (void)listing;

  std::vector<std::string> want = {
      "2027-01-16 interview Data engineer", "2027-01-16 reminder Send forms",
      "2027-01-16 reminder Call Bea",       "2027-01-16 interview Data engineer",
      "2027-01-18 deadline Data engineer",  "2027-01-20 closing SRE",
      "2027-01-25 answer_by Data engineer"};
  EXPECT_EQ(shown(january()), want);
  auto items = agenda(db(), owner_, january());
  ASSERT_EQ(items.size(), want.size());
  EXPECT_FALSE(items[0].at.has_value()) << "the all-day interview first";
  EXPECT_EQ(items[3].at, parse_local("2027-01-16 23:30", kZone));
  EXPECT_EQ(items[3].company, "Acme");

  want.insert(want.begin(), "2027-01-02 reminder Long ago (overdue)");
  EXPECT_EQ(shown(january(true)), want) << "overdue first, when asked";
  EXPECT_EQ(shown(january(), other_).size(), 1u) << "only ben's own";
}

TEST_P(AgendaTest, DoneAndDecidedThingsStayOrLeaveAsTheyShould) {
  testing::Factory f(db(), clock_);
  auto co = f.company(owner_, "Acme");
  auto gone = f.listing(owner_, co, "Discarded", {.closes_on = "2027-01-20"});
  db().query("UPDATE listings SET state = 'discarded' WHERE id = ?", {gone});
  auto applied = f.listing(owner_, co, "Applied", {.closes_on = "2027-01-21"});
  f.application(owner_, applied, "applied");
  auto done = make("reminders", {{"title", "Done already"}, {"due_at", "2027-01-17T09:00"}});
  db().query("UPDATE reminders SET done_at = ? WHERE id = ?",
             {clock_.now_ms(), std::stoll(id(done))});
  auto items = agenda(db(), owner_, january(true));
  ASSERT_EQ(items.size(), 1u) << "a discarded or applied-to listing's closing date is no news";
  EXPECT_TRUE(items[0].done);
  EXPECT_FALSE(items[0].overdue);
}

TEST(SnoozeUntil, PresetsWhereThePersonLives) {
  // Friday 2027-01-15, 16:00 in Lisbon (UTC).
  const std::int64_t now = parse_local("2027-01-15 16:00", "Europe/Lisbon").value();
  EXPECT_EQ(snooze_until("later", now, "Europe/Lisbon"), now + 3 * 3600 * 1000);
  EXPECT_EQ(snooze_until("tomorrow", now, "Europe/Lisbon"),
            parse_local("2027-01-16 09:00", "Europe/Lisbon"));
  EXPECT_EQ(snooze_until("next_week", now, "Europe/Lisbon"),
            parse_local("2027-01-18 09:00", "Europe/Lisbon"));
  // 01:00 on Monday in Tokyo is still Sunday in UTC: next week is the 25th.
  const std::int64_t monday = parse_local("2027-01-18 01:00", "Asia/Tokyo").value();
  EXPECT_EQ(snooze_until("next_week", monday, "Asia/Tokyo"),
            parse_local("2027-01-25 09:00", "Asia/Tokyo"));
  EXPECT_EQ(snooze_until("never", now, "UTC"), std::nullopt);
}

PETO_BOTH_BACKENDS(AgendaTest);

}  // namespace
}  // namespace peto::domain
