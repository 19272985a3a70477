// The dashboard on both backends: reminders due and upcoming, "gone quiet",
// closing soon, interviews and the counts.
#include "domain/dashboard.h"

#include <gtest/gtest.h>

#include "core/timezone.h"
#include "domain/accounts.h"
#include "domain/applications.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr std::int64_t kDay = 24LL * 3600 * 1000;
constexpr int kQuietDays = 21;
constexpr int kNoticeDays = 3;

class DashboardTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    apps_ = std::make_unique<Applications>(*records_);
    company_ = create("companies", {{"name", "Acme"}});
  }

  Applications& apps() { return *apps_; }

  std::int64_t create(const std::string& kind_name, json values, std::int64_t owner = 0) {
    Input in;
    in.values = std::move(values);
    auto w = records().create(owner == 0 ? owner_ : owner, kind(kind_name), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << kind_name;
    if (!std::holds_alternative<Record>(w)) return 0;
    return std::get<Record>(w)["id"].get<std::int64_t>();
  }
  std::int64_t listing(const std::string& role, json more = json::object()) {
    more["role"] = role;
    more["company_id"] = std::to_string(company_);
    return create("listings", more);
  }
  std::int64_t application(const std::string& status, const std::string& role = "Engineer") {
    auto w = apps().apply(owner_, listing(role), status);
    EXPECT_TRUE(std::holds_alternative<Record>(w));
    return std::holds_alternative<Record>(w) ? std::get<Record>(w)["id"].get<std::int64_t>() : 0;
  }
  std::int64_t reminder(std::int64_t due_at, std::int64_t app = 0, std::int64_t owner = 0) {
    json v = {{"title", "Reminder"}, {"due_at", due_at}};
    if (app != 0) v["application_id"] = app;
    Input in;
    in.values = v;
    in.from_form = false;
    auto w = records().create(owner == 0 ? owner_ : owner, kind("reminders"), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w));
    return std::holds_alternative<Record>(w) ? std::get<Record>(w)["id"].get<std::int64_t>() : 0;
  }
  std::int64_t interview(std::int64_t app, std::int64_t starts_at) {
    Input in;
    in.values = {{"application_id", app}, {"starts_at", starts_at}};
    in.from_form = false;
    auto w = records().create(owner_, kind("interviews"), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w));
    return std::holds_alternative<Record>(w) ? std::get<Record>(w)["id"].get<std::int64_t>() : 0;
  }

  Dashboard board(std::int64_t owner = 0) {
    return dashboard(db(), owner == 0 ? owner_ : owner, clock_.now_ms(), today_utc(clock_),
                     kQuietDays, kNoticeDays);
  }
  static std::vector<std::int64_t> ids(const std::vector<Record>& items) {
    std::vector<std::int64_t> out;
    for (const Record& r : items) out.push_back(r["id"].get<std::int64_t>());
    return out;
  }
  std::vector<std::int64_t> quiet() { return ids(board().gone_quiet); }
  void advance_days(std::int64_t days) { clock_.advance(std::chrono::milliseconds(days * kDay)); }

  std::unique_ptr<Applications> apps_;
  std::int64_t company_ = 0;
};

using Ids = std::vector<std::int64_t>;

TEST_P(DashboardTest, RemindersDueAndUpcoming) {
  std::int64_t now = clock_.now_ms();
  std::int64_t app = application("applied", "Designer");
  std::int64_t overdue = reminder(now - kDay, app);
  std::int64_t due_now = reminder(now);
  std::int64_t tomorrow = reminder(now + kDay);
  std::int64_t in_a_week = reminder(now + 7 * kDay);
  reminder(now + 7 * kDay + 1);  // beyond the week
  std::int64_t done = reminder(now - 2 * kDay);
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_done(owner_, done, true)));
  reminder(now - kDay, 0, other_);

  Dashboard d = board();
  EXPECT_EQ(ids(d.reminders_due), (Ids{overdue, due_now})) << "oldest first, done left out";
  EXPECT_EQ(d.reminders_due[0]["application_role"], "Designer");
  EXPECT_TRUE(d.reminders_due[1]["application_role"].is_null());
  EXPECT_EQ(ids(d.reminders_upcoming), (Ids{tomorrow, in_a_week}));

  clock_.advance(std::chrono::milliseconds(kDay));
  d = board();
  EXPECT_EQ(ids(d.reminders_due), (Ids{overdue, due_now, tomorrow}));
}

TEST_P(DashboardTest, GoneQuietAfterTheQuietDays) {
  std::int64_t a = application("applied");
  advance_days(kQuietDays);
  EXPECT_TRUE(quiet().empty()) << "exactly 21 days is not yet quiet";
  clock_.advance(1ms);
  EXPECT_EQ(quiet(), (Ids{a}));
  Dashboard d = board();
  EXPECT_EQ(d.gone_quiet[0]["status"], "applied");
  EXPECT_EQ(d.gone_quiet[0]["company_name"], "Acme");
  EXPECT_EQ(d.gone_quiet[0]["quiet_days"], kQuietDays);
  EXPECT_TRUE(board(other_).gone_quiet.empty());
}

TEST_P(DashboardTest, LongestQuietFirst) {
  std::int64_t first = application("applied");
  advance_days(2);
  std::int64_t second = application("screening");
  advance_days(1);
  std::int64_t third = application("offer");
  advance_days(kQuietDays + 1);
  EXPECT_EQ(quiet(), (Ids{first, second, third}));
}

TEST_P(DashboardTest, DraftsAndClosedApplicationsNeverGoQuiet) {
  application("draft");
  std::int64_t w = application("applied");
  StatusChange c;
  c.to = "withdrawn";
  ASSERT_TRUE(std::holds_alternative<Record>(apps().change_status(owner_, w, c)));
  application("rejected");
  application("ghosted");
  application("accepted");
  advance_days(100);
  EXPECT_TRUE(quiet().empty());
}

TEST_P(DashboardTest, AFutureReminderKeepsItOffTheList) {
  std::int64_t a = application("applied");
  advance_days(kQuietDays + 1);
  ASSERT_EQ(quiet(), (Ids{a}));
  std::int64_t past = reminder(clock_.now_ms() - kDay, a);
  EXPECT_EQ(quiet(), (Ids{a})) << "a reminder already past does not count";
  std::int64_t next = reminder(clock_.now_ms() + kDay, a);
  EXPECT_TRUE(quiet().empty());
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_done(owner_, next, true)));
  EXPECT_EQ(quiet(), (Ids{a})) << "a done reminder does not count";
  reminder(clock_.now_ms() + kDay, 0);
  EXPECT_EQ(quiet(), (Ids{a})) << "nor one for no application";
  (void)past;
}

TEST_P(DashboardTest, AnInterviewWaitingForItsOutcomeKeepsItOffTheList) {
  std::int64_t a = application("interviewing");
  std::int64_t i = interview(a, clock_.now_ms() + kDay);
  advance_days(kQuietDays + 10);
  EXPECT_TRUE(quiet().empty()) << "the interview (now past) still has no outcome";
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, i, "no_show")));
  EXPECT_TRUE(quiet().empty()) << "recording the outcome is activity";
  advance_days(kQuietDays + 1);
  EXPECT_EQ(quiet(), (Ids{a}));
}

TEST_P(DashboardTest, NewTimelineActivityResetsTheCount) {
  std::int64_t a = application("applied");
  std::int64_t b = application("acknowledged");
  advance_days(kQuietDays + 1);
  ASSERT_EQ(quiet(), (Ids{a, b}));
  NewEvent e;
  e.kind = "email_received";
  e.summary = "They wrote back";
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(apps().add(owner_, a, e)));
  EXPECT_EQ(quiet(), (Ids{b}));
  StatusChange c;
  c.to = "screening";
  ASSERT_TRUE(std::holds_alternative<Record>(apps().change_status(owner_, b, c)));
  EXPECT_TRUE(quiet().empty());
  advance_days(kQuietDays + 1);
  EXPECT_EQ(quiet(), (Ids{a, b}));
}

TEST_P(DashboardTest, ClosingSoon) {
  // Today is 2027-01-15; three days' notice reaches 2027-01-18.
  std::int64_t today = listing("Today", {{"closes_on", "2027-01-15"}});
  std::int64_t last_day = listing("Last day", {{"closes_on", "2027-01-18"}});
  std::int64_t shortlisted =
      listing("Shortlisted", {{"closes_on", "2027-01-17"}, {"state", "shortlisted"}});
  std::int64_t later = listing("Later", {{"closes_on", "2027-01-19"}});
  listing("Past", {{"closes_on", "2027-01-14"}});
  listing("No date");
  listing("Discarded", {{"closes_on", "2027-01-16"}, {"state", "discarded"}});
  std::int64_t applied = listing("Applied", {{"closes_on", "2027-01-16"}});
  ASSERT_TRUE(std::holds_alternative<Record>(apps().apply(owner_, applied, "applied")));
  // A draft is not sent yet: the listing is still to act on before it closes.
  std::int64_t drafted = listing("Drafted", {{"closes_on", "2027-01-16"}});
  ASSERT_TRUE(std::holds_alternative<Record>(apps().apply(owner_, drafted, "draft")));
  std::int64_t closed = listing("Closed early", {{"closes_on", "2027-01-16"}});
  db().query("UPDATE listings SET closed_at = ? WHERE id = ?", {clock_.now_ms(), closed});

  Dashboard d = board();
  EXPECT_EQ(ids(d.closing_soon), (Ids{today, drafted, shortlisted, last_day}));
  EXPECT_EQ(d.closing_soon[0]["closes_on"], "2027-01-15");
  EXPECT_EQ(d.closing_soon[0]["company_name"], "Acme");
  EXPECT_TRUE(board(other_).closing_soon.empty());

  advance_days(1);  // the window moves on to 2027-01-19
  EXPECT_EQ(ids(board().closing_soon), (Ids{drafted, shortlisted, last_day, later}));
}

TEST_P(DashboardTest, InterviewsAndCounts) {
  std::int64_t a = application("interviewing", "SRE");
  std::int64_t soon = interview(a, clock_.now_ms() + kDay);
  std::int64_t later = interview(a, clock_.now_ms() + 3 * kDay);
  std::int64_t cancelled = interview(a, clock_.now_ms() + 2 * kDay);
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, cancelled, "cancelled")));
  interview(a, clock_.now_ms() - 3 * 3600 * 1000);  // started three hours ago
  application("draft");
  application("rejected");
  listing("Undecided");
  listing("Shortlisted", {{"state", "shortlisted"}});
  // Closed ones are past deciding, as on the Undecided tab.
  listing("Closed yesterday", {{"closes_on", add_days(today_utc(clock_), -1)}});
  std::int64_t closed = listing("Closed early");
  db().query("UPDATE listings SET closed_at = ? WHERE id = ?", {clock_.now_ms(), closed});

  Dashboard d = board();
  EXPECT_EQ(ids(d.interviews), (Ids{soon, later}));
  EXPECT_EQ(d.interviews[0]["listing_role"], "SRE");
  EXPECT_EQ(d.interviews[0]["company_name"], "Acme");
  EXPECT_EQ(d.open_applications, 2);
  EXPECT_EQ(d.undecided_listings, 1) << "a listing applied to is no longer undecided";
  Dashboard theirs = board(other_);
  EXPECT_TRUE(theirs.interviews.empty());
  EXPECT_EQ(theirs.open_applications, 0);
  EXPECT_EQ(theirs.undecided_listings, 0);
}

TEST(AddDays, CrossesMonthsAndYears) {
  EXPECT_EQ(add_days("2027-01-30", 3), "2027-02-02");
  EXPECT_EQ(add_days("2028-02-28", 1), "2028-02-29");
  EXPECT_EQ(add_days("2026-12-31", 1), "2027-01-01");
  EXPECT_EQ(add_days("2027-03-01", -1), "2027-02-28");
  EXPECT_EQ(add_days("junk", 1), "junk");
}

PETO_BOTH_BACKENDS(DashboardTest);

}  // namespace
}  // namespace peto::domain
