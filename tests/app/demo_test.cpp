// `peto demo`'s data set on both backends: the counts, that statuses were
// reached through the status machine, what the dashboard shows, determinism.
#include <gtest/gtest.h>

#include <map>

#include "app/app.h"
#include "domain/accounts.h"
#include "domain/applications.h"
#include "domain/dashboard.h"
#include "tests/support/domain_fixture.h"

namespace peto {
namespace {

class DemoTest : public testing::MigratedTest {
 protected:
  std::int64_t count(const std::string& table, std::int64_t owner, const std::string& where = "") {
    return db()
        .query("SELECT COUNT(*) FROM " + table + " WHERE owner_id = ?" + where, {owner})[0]
        .int_at(0);
  }
};

TEST_P(DemoTest, LoadsTheWholeStory) {
  std::int64_t owner = account("demo@example.com");
  app::load_demo(db(), clock_, owner);
  EXPECT_EQ(count("companies", owner), 6);
  EXPECT_EQ(count("contacts", owner), 8);
  EXPECT_EQ(count("listings", owner), 30);
  EXPECT_EQ(count("applications", owner), 20);
  EXPECT_EQ(count("reminders", owner), 6);
  EXPECT_EQ(count("reminders", owner, " AND done_at IS NOT NULL"), 2);
  EXPECT_EQ(count("interviews", owner), 2);
  EXPECT_EQ(count("interviews", owner,
                  " AND outcome = 'scheduled' AND starts_at > " + std::to_string(clock_.now_ms())),
            1);
  EXPECT_EQ(count("offers", owner), 1);
  EXPECT_EQ(count("tags", owner), 3);
  EXPECT_GE(count("notes", owner), 3);
  EXPECT_GE(db().query("SELECT COUNT(*) FROM application_tags")[0].int_at(0), 3);
  EXPECT_EQ(count("companies", owner, " AND name <> name_key"), 6) << "folded keys are stored";

  std::map<std::string, std::int64_t> by_status;
  for (const auto& r : db().query(
           "SELECT status, COUNT(*) FROM applications WHERE owner_id = ? GROUP BY status", {owner}))
    by_status[r.text(0)] = r.int_at(1);
  EXPECT_EQ(by_status, (std::map<std::string, std::int64_t>{{"draft", 2},
                                                            {"applied", 4},
                                                            {"acknowledged", 2},
                                                            {"screening", 2},
                                                            {"interviewing", 3},
                                                            {"assessment", 1},
                                                            {"offer", 1},
                                                            {"rejected", 3},
                                                            {"withdrawn", 1},
                                                            {"ghosted", 1}}));
  // Nothing in the future but what is meant to be.
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM application_events WHERE occurred_at > ?",
                       {clock_.now_ms()})[0]
                .int_at(0),
            0);
}

TEST_P(DemoTest, TheRemindersPetoMakesAreInTheStoryToo) {
  // As `peto demo` makes its account: with the automatic reminders on.
  std::int64_t owner = peto::testing::Factory(db(), clock_)
                           .account("demo@example.com", {.reminders = domain::ReminderSwitches{}});
  app::load_demo(db(), clock_, owner);
  const std::string open = " AND done_at IS NULL AND made_for = ";
  EXPECT_EQ(count("reminders", owner, open + "'interview'"), 1) << "the eve of the on-site";
  EXPECT_EQ(count("reminders", owner, " AND done_at IS NOT NULL AND made_for = 'interview'"), 1)
      << "the video call was held";
  EXPECT_EQ(count("reminders", owner, open + "'answer_by'"), 1);
  EXPECT_GE(count("reminders", owner, open + "'follow_up'"), 1);
  EXPECT_GE(count("reminders", owner, " AND done_at IS NOT NULL AND made_for = 'follow_up'"), 1)
      << "answered since";
}

TEST_P(DemoTest, StatusesWereReachedThroughTheStatusMachine) {
  std::int64_t owner = account("demo@example.com");
  app::load_demo(db(), clock_, owner);
  domain::Records records(db(), clock_);
  domain::Applications apps(records);
  domain::ListQuery q;
  q.tab = "all";
  q.limit = 200;
  auto page = records.list(owner, domain::kind("applications"), q);
  ASSERT_EQ(page.items.size(), 20u);
  for (const auto& a : page.items) {
    auto t = apps.timeline(owner, a["id"].get<std::int64_t>());
    ASSERT_TRUE(t);
    ASSERT_FALSE(t->empty());
    EXPECT_EQ(t->back()["summary"], "Application created");
    std::string last_status;
    for (const auto& e : *t)
      if (e["kind"] == "status_change") {
        last_status = e["to_status"].get<std::string>();
        break;  // newest first
      }
    if (a["status"] == "draft") {
      EXPECT_EQ(last_status, "");
      EXPECT_TRUE(a["applied_at"].is_null());
    } else {
      EXPECT_EQ(last_status, a["status"]) << a["id"];
      EXPECT_TRUE(a["applied_at"].is_number()) << "every one here was sent";
      EXPECT_LT(a["applied_at"].get<std::int64_t>(), clock_.now_ms());
    }
    EXPECT_EQ(a["closed_at"].is_null(), domain::is_open_status(a["status"].get<std::string>()));
  }
}

TEST_P(DemoTest, TheDashboardHasSomethingInEveryList) {
  std::int64_t owner = account("demo@example.com");
  app::load_demo(db(), clock_, owner);
  auto d = domain::dashboard(db(), owner, clock_.now_ms(), domain::today_utc(clock_), 21, 3);
  // The person's own; the ones peto makes itself add to both lists.
  EXPECT_EQ(d.reminders_due.size(), 2u);
  EXPECT_EQ(d.reminders_upcoming.size(), 2u);
  EXPECT_EQ(d.closing_soon.size(), 3u);
  EXPECT_EQ(d.interviews.size(), 1u);
  EXPECT_GE(d.gone_quiet.size(), 2u);
  EXPECT_EQ(d.open_applications, 15);
}

TEST_P(DemoTest, SameNowSameData) {
  std::int64_t a = account("a@example.com");
  std::int64_t b = account("b@example.com");
  app::load_demo(db(), clock_, a);
  app::load_demo(db(), clock_, b);
  auto shape = [&](std::int64_t owner) {
    std::vector<std::string> out;
    for (const auto& r :
         db().query("SELECT l.role, l.closes_on, l.created_at, a.status, a.applied_at"
                    " FROM listings l LEFT JOIN applications a ON a.listing_id = l.id"
                    " WHERE l.owner_id = ? ORDER BY l.id",
                    {owner}))
      out.push_back(r.text(0) + "|" + r.text(1) + "|" + r.text(2) + "|" + r.text(3) + "|" +
                    r.text(4));
    for (const auto& r :
         db().query("SELECT e.kind, e.occurred_at FROM application_events e"
                    " JOIN applications a ON a.id = e.application_id WHERE a.owner_id = ?"
                    " ORDER BY e.id",
                    {owner}))
      out.push_back(r.text(0) + "@" + r.text(1));
    return out;
  };
  EXPECT_EQ(shape(a), shape(b));
}

TEST(DemoCommand, CreatesTheAccountOnceAndEndsWithTheEmail) {
  testing::TempDir dir;
  std::string env =
      "PETO_LOG_LEVEL=warning PETO_PASSWORD_COST=test PETO_DATA_DIR=" + dir.path().string() +
      " PETO_DATABASE_URL=sqlite://" + (dir.path() / "peto.db").string() + " ";
  std::string out;
  ASSERT_EQ(
      testing::run_command(env + testing::peto_binary() + " demo --email Try@Example.com", &out), 0)
      << out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  EXPECT_EQ(out.substr(out.rfind('\n') + 1), "try@example.com");
  EXPECT_NE(out.find("20 applications"), std::string::npos) << out;
  EXPECT_NE(out.find("password: "), std::string::npos) << "a made-up password is shown";

  EXPECT_EQ(testing::run_command("echo 'a long enough password' | " + env + testing::peto_binary() +
                                     " demo --email try@example.com --password-stdin",
                                 &out),
            2)
      << out;
  EXPECT_NE(out.find("exists already"), std::string::npos) << out;
  ASSERT_EQ(testing::run_command("echo 'a long enough password' | " + env + testing::peto_binary() +
                                     " demo --password-stdin",
                                 &out),
            0)
      << out;
  EXPECT_EQ(out.find("password: "), std::string::npos) << "a given password is not echoed";
}

PETO_BOTH_BACKENDS(DemoTest);

}  // namespace
}  // namespace peto
