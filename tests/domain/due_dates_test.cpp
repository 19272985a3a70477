// When reminders and interviews fall, on both backends: at a moment, on a
// whole day in the owner's time zone (all-day), or — reminders only — not at
// all ("No date"): how each is written, listed, announced and moved when the
// owner's zone changes.
#include <gtest/gtest.h>

#include "core/timezone.h"
#include "domain/accounts.h"
#include "domain/dashboard.h"
#include "domain/due.h"
#include "domain/records.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using nlohmann::json;

class DueDatesTest : public peto::testing::TwoOwnersTest {
 protected:
  // A form as a person in `zone` sends it.
  static Input form(json values, const std::string& zone = "UTC") {
    Input in;
    in.values = std::move(values);
    in.time_zone = zone;
    return in;
  }
  static Input api(json values, bool partial = false) {
    Input in;
    in.values = std::move(values);
    in.from_form = false;
    in.strict_types = true;
    in.partial = partial;
    return in;
  }
  static std::map<std::string, std::string> errors(const Written& w) {
    if (auto* e = std::get_if<FieldErrors>(&w)) return e->by_field;
    return {};
  }
  Record written(const Written& w) {
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << ::testing::PrintToString(errors(w));
    return std::holds_alternative<Record>(w) ? std::get<Record>(w) : json::object();
  }
  Record reminder(json values) {
    return written(records().create(owner_, kind("reminders"), form(std::move(values))));
  }
  // The id of an application sent to Acme.
  std::int64_t applied() {
    peto::testing::Factory make(db(), clock_);
    return make.application(owner_, make.listing(owner_, make.company(owner_, "Acme"), "SRE"),
                            "applied");
  }
  void zone(const std::string& z) {
    Accounts accounts(db(), clock_);
    Account wanted = *accounts.find(owner_);
    wanted.time_zone = z;
    ASSERT_TRUE(accounts.update_profile(owner_, wanted).empty());
  }
  static std::int64_t at(const std::string& local, const std::string& z) {
    return parse_local(local, z).value();
  }
  std::vector<std::int64_t> soonest(const std::string& tab, int limit) {
    std::vector<std::int64_t> out;
    ListQuery q;
    q.tab = tab;
    q.sort = "due_at";
    q.limit = limit;
    for (int pages = 0; pages < 20; ++pages) {
      Page page = records().list(owner_, kind("reminders"), q);
      for (const Record& r : page.items) out.push_back(r["id"].get<std::int64_t>());
      if (!page.next_after) break;
      q.after = page.next_after;
    }
    return out;
  }
};

TEST_P(DueDatesTest, AReminderMayHaveNoDateAndComesLastSoonestFirst) {
  Record undated = reminder({{"title", "Read about Acme"}});
  EXPECT_TRUE(undated["due_at"].is_null());
  EXPECT_TRUE(undated["due_on"].is_null());
  Record later = reminder({{"title", "Call back"}, {"due_at", "2027-03-01T09:00"}});
  Record overdue = reminder({{"title", "Send the form"}, {"due_at", "2027-01-10T09:00"}});
  Record second_undated = reminder({{"title", "Update the CV"}});
  auto id = [](const Record& r) { return r["id"].get<std::int64_t>(); };

  std::vector<std::int64_t> want = {id(overdue), id(later), id(undated), id(second_undated)};
  EXPECT_EQ(soonest("outstanding", 50), want) << "undated last, on both backends";
  EXPECT_EQ(soonest("outstanding", 1), want) << "a page at a time walks them all once";
  EXPECT_EQ(soonest("undated", 50), (std::vector<std::int64_t>{id(undated), id(second_undated)}));

  // Never due, so never announced, and not on the dashboard's lists.
  auto conn = db().acquire();
  for (const due::Reminder& r : due::reminders(*conn, at("2099-01-01 00:00", "UTC"), 100))
    EXPECT_NE(r.title, "Read about Acme");
  Dashboard d = dashboard(db(), owner_, clock_.now_ms(), today_utc(clock_), 21, 3);
  for (const Record& r : d.reminders_due) EXPECT_FALSE(r["due_at"].is_null());
  EXPECT_EQ(d.reminders_due.size(), 1u);
}

TEST_P(DueDatesTest, AnUndatedReminderDoesNotKeepAnApplicationFromGoingQuiet) {
  std::int64_t a = applied();
  reminder({{"title", "Think about it"}, {"application_id", std::to_string(a)}});
  clock_.advance(std::chrono::hours(24 * 30));
  Dashboard d = dashboard(db(), owner_, clock_.now_ms(), today_utc(clock_), 21, 3);
  ASSERT_EQ(d.gone_quiet.size(), 1u) << "a reminder without a date is no plan to hear back";
  EXPECT_EQ(d.gone_quiet[0]["id"], a);
}

TEST_P(DueDatesTest, AnAllDayReminderFallsAtTheStartOfItsDayWhereTheOwnerIs) {
  zone("America/Los_Angeles");
  Record r = reminder({{"title", "Deadline"}, {"due_on", "2027-01-20"}});
  EXPECT_EQ(r["due_on"], "2027-01-20");
  EXPECT_EQ(r["due_at"], at("2027-01-20 00:00", "America/Los_Angeles"));
  std::int64_t id = r["id"].get<std::int64_t>();

  // The owner moves east: the day stays the day, its start moves with them.
  zone("Asia/Tokyo");
  Record moved = *records().get(owner_, kind("reminders"), id);
  EXPECT_EQ(moved["due_on"], "2027-01-20");
  EXPECT_EQ(moved["due_at"], at("2027-01-20 00:00", "Asia/Tokyo"));
  Record timed = reminder({{"title", "Call"}, {"due_at", "2027-01-20T09:00"}});
  zone("Europe/Lisbon");
  EXPECT_EQ((*records().get(owner_, kind("reminders"), timed["id"].get<std::int64_t>()))["due_at"],
            timed["due_at"])
      << "a timed reminder is a moment: a new zone does not move it";
}

TEST_P(DueDatesTest, ATimeOrADayNotBoth) {
  zone("Europe/Berlin");
  std::int64_t before = count("reminders");
  auto w = records().create(
      owner_, kind("reminders"),
      form({{"title", "Call"}, {"due_at", "2027-01-20T09:00"}, {"due_on", "2027-01-21"}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"due_on", "error_time_or_day"}}));
  EXPECT_EQ(count("reminders"), before) << "nothing written";

  Record r = reminder({{"title", "Deadline"}, {"due_on", "2027-01-20"}});
  std::int64_t id = r["id"].get<std::int64_t>();
  const Kind& k = kind("reminders");
  // A form that sends the stored time back with a new day moves the day.
  Record moved = written(records().update(
      owner_, k, id,
      form({{"title", "Deadline"}, {"due_at", "2027-01-20T00:00"}, {"due_on", "2027-01-22"}},
           "Europe/Berlin")));
  EXPECT_EQ(moved["due_at"], at("2027-01-22 00:00", "Europe/Berlin"));
  // The API: a time alone makes it timed; a day alone all-day again; the day
  // taken away keeps the moment it stood for.
  Record timed =
      written(records().update(owner_, k, id, api({{"due_at", "2027-01-22T15:30:00Z"}}, true)));
  EXPECT_TRUE(timed["due_on"].is_null());
  EXPECT_EQ(timed["due_at"], at("2027-01-22 15:30", "UTC"));
  Record day = written(records().update(owner_, k, id, api({{"due_on", "2027-02-01"}}, true)));
  EXPECT_EQ(day["due_at"], at("2027-02-01 00:00", "Europe/Berlin"));
  Record kept = written(records().update(owner_, k, id, api({{"due_on", nullptr}}, true)));
  EXPECT_TRUE(kept["due_on"].is_null());
  EXPECT_EQ(kept["due_at"], at("2027-02-01 00:00", "Europe/Berlin"));
  Record none = written(records().update(owner_, k, id, api({{"due_at", nullptr}}, true)));
  EXPECT_TRUE(none["due_at"].is_null());
}

TEST_P(DueDatesTest, AnAllDayInterviewLastsTheDayAndAnInterviewNeedsOneOrTheOther) {
  zone("America/New_York");
  std::string a = std::to_string(applied());
  Record i = written(records().create(owner_, kind("interviews"),
                                      form({{"application_id", a}, {"starts_on", "2027-03-14"}})));
  EXPECT_EQ(i["starts_at"], at("2027-03-14 00:00", "America/New_York"));
  EXPECT_EQ(i["ends_at"], at("2027-03-15 00:00", "America/New_York"));
  EXPECT_EQ(i["ends_at"].get<std::int64_t>() - i["starts_at"].get<std::int64_t>(), 23 * 3600000)
      << "New York moves its clocks that day";

  auto w = records().create(owner_, kind("interviews"), form({{"application_id", a}}));
  EXPECT_EQ(errors(w), (std::map<std::string, std::string>{{"starts_at", "error_required"}}));
}

PETO_BOTH_BACKENDS(DueDatesTest);

}  // namespace
}  // namespace peto::domain
