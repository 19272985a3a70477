// The reminders peto makes itself (domain/auto_reminders.h), on both
// backends: made once, in the person's language and zone, moved with their
// date, done when their reason goes, switched off in the profile, and taken
// to the trash and back with what they are about.
#include <gtest/gtest.h>

#include "core/timezone.h"
#include "domain/accounts.h"
#include "domain/applications.h"
#include "domain/auto_reminders.h"
#include "domain/records.h"
#include "domain/trash.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using nlohmann::json;

constexpr std::int64_t kDay = 24LL * 60 * 60 * 1000;

class AutoRemindersTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    apps_ = std::make_unique<Applications>(records());
    switches({});  // as a new account has them: the test factory switches them off
    peto::testing::Factory make(db(), clock_);
    company_ = make.company(owner_, "Acme");
    listing_ = make.listing(owner_, company_, "SRE");
  }

  void switches(const ReminderSwitches& on, const std::string& zone = "UTC") {
    Accounts accounts(db(), clock_);
    Account wanted = *accounts.find(owner_);
    wanted.reminders = on;
    wanted.time_zone = zone;
    ASSERT_TRUE(accounts.update_profile(owner_, wanted).empty());
  }
  Record written(const Written& w) {
    const auto* errors = std::get_if<FieldErrors>(&w);
    EXPECT_TRUE(std::holds_alternative<Record>(w))
        << (errors != nullptr ? ::testing::PrintToString(errors->by_field) : "not found");
    return std::holds_alternative<Record>(w) ? std::get<Record>(w) : json::object();
  }
  std::int64_t id_of(const Written& w) { return written(w).value("id", std::int64_t{0}); }
  std::int64_t create(const std::string& kind_name, json values) {
    Input in;
    in.values = std::move(values);
    in.from_form = false;
    return id_of(records().create(owner_, kind(kind_name), in));
  }
  Record update(const std::string& kind_name, std::int64_t id, json values) {
    Input in;
    in.values = std::move(values);
    in.from_form = false;
    in.partial = true;
    return written(records().update(owner_, kind(kind_name), id, in));
  }
  // Moves an interview to `local` (UTC), an hour long.
  void reschedule(std::int64_t interview, const std::string& local) {
    update("interviews", interview,
           {{"starts_at", at(local)}, {"ends_at", at(local) + 60LL * 60 * 1000}});
  }
  std::int64_t apply(const std::string& status = "applied",
                     std::optional<std::int64_t> at = std::nullopt) {
    return id_of(apps_->apply(owner_, listing_, status, "", at));
  }
  void status(std::int64_t application, const std::string& to) {
    StatusChange c;
    c.to = to;
    written(apps_->change_status(owner_, application, c));
  }
  // The automatic reminders made for `made_for`, as rows.
  store::Rows made(const std::string& made_for) {
    return db().query(
        "SELECT id, title, due_at, due_on, done_at, application_id, made_from FROM reminders"
        " WHERE owner_id = ? AND made_for = ? ORDER BY id",
        {owner_, made_for});
  }
  std::int64_t at(const std::string& local, const std::string& zone = "UTC") {
    return parse_local(local, zone).value();
  }

  std::unique_ptr<Applications> apps_;
  std::int64_t company_ = 0;
  std::int64_t listing_ = 0;
};

// The clock reads 2027-01-15 08:00 UTC.

TEST_P(AutoRemindersTest, AFollowUpAWeekAfterApplyingWhileTheApplicationWaits) {
  std::int64_t a = apply();
  auto rows = made("follow_up");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].text("title"), "Follow up: SRE at Acme");
  EXPECT_EQ(rows[0].text("due_on"), "2027-01-22") << "all day, seven days on";
  EXPECT_EQ(rows[0].int_at("due_at"), at("2027-01-22 00:00"));
  EXPECT_EQ(rows[0].int_at("application_id"), a);
  EXPECT_EQ(rows[0].int_at("made_from"), a);

  status(a, "acknowledged");
  status(a, "applied");
  rows = made("follow_up");
  ASSERT_EQ(rows.size(), 1u) << "made once: the application was sent once";
  EXPECT_TRUE(rows[0].is_null("done_at")) << "an acknowledgement is no answer yet";

  status(a, "screening");
  rows = made("follow_up");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].is_null("done_at")) << "they answered: nothing to follow up";
  EXPECT_TRUE(made("follow_up").size() == 1u);
}

TEST_P(AutoRemindersTest, AFollowUpPastItsDayStaysToDoWhileTheApplicationWaits) {
  std::int64_t a = apply();
  clock_.advance(std::chrono::hours(24 * 10));
  status(a, "acknowledged");
  auto rows = made("follow_up");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].is_null("done_at")) << "overdue is not answered";
  EXPECT_EQ(rows[0].text("due_on"), "2027-01-22") << "and not moved";
}

TEST_P(AutoRemindersTest, ADraftHasNoFollowUpUntilItIsSent) {
  std::int64_t a = apply("draft");
  EXPECT_TRUE(made("follow_up").empty());
  status(a, "applied");
  ASSERT_EQ(made("follow_up").size(), 1u);
}

TEST_P(AutoRemindersTest, TheProfileDecidesTheDaysTheZoneAndWhetherAtAll) {
  // 2027-01-15 08:00 UTC is 21:00 on the 15th in Auckland.
  switches({.follow_up_days = 3}, "Pacific/Auckland");
  apply();
  auto rows = made("follow_up");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].text("due_on"), "2027-01-18");
  EXPECT_EQ(rows[0].int_at("due_at"), at("2027-01-18 00:00", "Pacific/Auckland"));

  switches({.follow_up_days = 0, .interviews = false, .answer_by = false});
  peto::testing::Factory make(db(), clock_);
  listing_ = make.listing(owner_, make.company(owner_, "Initech"), "DBA");
  std::int64_t b = apply();
  create("interviews", {{"application_id", b}, {"starts_at", at("2027-01-20 10:00")}});
  create("offers", {{"application_id", b}, {"answer_by", "2027-01-25"}});
  EXPECT_EQ(made("follow_up").size(), 1u) << "only the first application's";
  EXPECT_TRUE(made("interview").empty());
  EXPECT_TRUE(made("answer_by").empty());
}

TEST_P(AutoRemindersTest, AnApplicationSentLongAgoHasNoFollowUpInThePast) {
  apply("applied", at("2026-12-01 09:00"));
  EXPECT_TRUE(made("follow_up").empty());
}

TEST_P(AutoRemindersTest, TheDayBeforeAnInterviewMovesWithItAndEndsWhenItIsCancelled) {
  std::int64_t a = apply();
  std::int64_t i =
      create("interviews", {{"application_id", a}, {"starts_at", at("2027-01-20 10:00")}});
  auto rows = made("interview");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].text("title"), "Interview tomorrow: SRE at Acme");
  EXPECT_EQ(rows[0].int_at("due_at"), at("2027-01-19 10:00")) << "24 hours before";
  EXPECT_TRUE(rows[0].is_null("due_on"));

  // Done, then the interview moves: the reminder moves and is to do again.
  written(apps_->set_done(owner_, rows[0].int_at("id"), true));
  reschedule(i, "2027-01-27 15:30");
  rows = made("interview");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].int_at("due_at"), at("2027-01-26 15:30"));
  EXPECT_TRUE(rows[0].is_null("done_at"));

  // The person's own title stays when the date moves.
  update("reminders", rows[0].int_at("id"), {{"title", "Read the team's blog"}});
  reschedule(i, "2027-01-28 15:30");
  EXPECT_EQ(made("interview")[0].text("title"), "Read the team's blog");

  // Snoozed, it stays snoozed through an edit that leaves the date alone.
  update("reminders", rows[0].int_at("id"), {{"due_at", at("2027-01-27 20:00")}});
  update("interviews", i, {{"place", "Room 4"}});
  EXPECT_EQ(made("interview")[0].int_at("due_at"), at("2027-01-27 20:00"));

  written(apps_->set_outcome(owner_, i, "cancelled"));
  rows = made("interview");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].is_null("done_at")) << "no interview, nothing to prepare";
}

TEST_P(AutoRemindersTest, AnAllDayInterviewIsRemindedTheDayBeforeAndASoonOneNotAtAll) {
  std::int64_t a = apply();
  create("interviews", {{"application_id", a}, {"starts_on", "2027-01-20"}});
  auto rows = made("interview");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].text("due_on"), "2027-01-19");

  create("interviews", {{"application_id", a}, {"starts_at", at("2027-01-16 07:00")}});
  EXPECT_EQ(made("interview").size(), 1u) << "less than a day ahead: its eve is past";
}

TEST_P(AutoRemindersTest, AnOfferIsRemindedTheDayBeforeItsAnswerIsDueUntilItIsDecided) {
  std::int64_t a = apply();
  std::int64_t o = create("offers", {{"application_id", a}, {"answer_by", "2027-01-20"}});
  auto rows = made("answer_by");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].text("title"), "Answer the offer by tomorrow: SRE at Acme");
  EXPECT_EQ(rows[0].text("due_on"), "2027-01-19");
  EXPECT_EQ(rows[0].int_at("made_from"), o);

  // An offer without a date gets its reminder when it gets one.
  std::int64_t undated = create("offers", {{"application_id", a}, {"base_pay", 50000}});
  EXPECT_EQ(made("answer_by").size(), 1u);
  update("offers", undated, {{"answer_by", "2027-02-02"}});
  ASSERT_EQ(made("answer_by").size(), 2u);
  EXPECT_EQ(made("answer_by")[1].text("due_on"), "2027-02-01");

  status(a, "accepted");
  for (const char* made_for : {"answer_by", "follow_up"})
    for (const auto& r : made(made_for))
      EXPECT_FALSE(r.is_null("done_at")) << made_for << ": the application is closed";
}

TEST_P(AutoRemindersTest, AClosingDateOnlyWhenSwitchedOnAndOnlyUntilApplied) {
  std::int64_t dated =
      create("listings", {{"role", "QA"}, {"company_id", company_}, {"closes_on", "2027-01-30"}});
  EXPECT_TRUE(made("closing").empty()) << "off unless chosen";

  switches({.closing = true});
  update("listings", listing_, {{"closes_on", "2027-02-10"}});
  auto rows = made("closing");
  ASSERT_EQ(rows.size(), 1u) << "the date given where there was none";
  EXPECT_EQ(rows[0].text("title"), "Closes tomorrow: SRE at Acme");
  EXPECT_EQ(rows[0].text("due_on"), "2027-02-09");
  EXPECT_TRUE(rows[0].is_null("application_id"));

  update("listings", dated, {{"closes_on", "2027-02-01"}});
  EXPECT_EQ(made("closing").size(), 1u) << "a date moved is not a date given";

  apply();
  rows = made("closing");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].is_null("done_at")) << "applied: its closing no longer matters";
}

TEST_P(AutoRemindersTest, ADeletedReminderIsNotMadeAgainAndTheTrashKeepsThemTogether) {
  std::int64_t a = apply();
  std::int64_t i =
      create("interviews", {{"application_id", a}, {"starts_at", at("2027-01-20 10:00")}});
  const std::int64_t eve = made("interview")[0].int_at("id");
  Trash trash(db(), clock_);

  // The interview goes to the trash with its reminder, and comes back with it.
  auto entry = records().remove(owner_, kind("interviews"), i);
  ASSERT_TRUE(entry);
  EXPECT_TRUE(made("interview").empty());
  ASSERT_TRUE(std::holds_alternative<Restored>(trash.restore(owner_, *entry)));
  ASSERT_EQ(made("interview").size(), 1u);
  EXPECT_EQ(made("interview")[0].int_at("id"), eve);

  // The application takes both its reminders, each once.
  auto whole = records().remove(owner_, kind("applications"), a);
  ASSERT_TRUE(whole);
  EXPECT_EQ(count("reminders"), 0);
  ASSERT_TRUE(std::holds_alternative<Restored>(trash.restore(owner_, *whole)));
  EXPECT_EQ(made("interview").size(), 1u);
  EXPECT_EQ(made("follow_up").size(), 1u);

  // The person deletes the reminder: moving the interview does not bring it back.
  ASSERT_TRUE(records().remove(owner_, kind("reminders"), eve));
  reschedule(i, "2027-01-21 10:00");
  EXPECT_TRUE(made("interview").empty());
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM reminders WHERE owner_id = ?", {other_})[0].int_at(0),
            0)
      << "another person's list is untouched";
}

PETO_BOTH_BACKENDS(AutoRemindersTest);

}  // namespace
}  // namespace peto::domain
