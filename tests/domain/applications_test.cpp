// Applications on both backends: applying, the status machine, the timeline,
// interview outcomes, reminders done and tags.
#include "domain/applications.h"

#include <gtest/gtest.h>

#include "domain/accounts.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

class ApplicationsTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    apps_ = std::make_unique<Applications>(*records_);
    listing_ = new_listing(owner_, "Acme", "Backend engineer");
  }

  Applications& apps() { return *apps_; }

  std::int64_t create(std::int64_t owner, const std::string& kind_name, json values) {
    Input in;
    in.values = std::move(values);
    auto w = records().create(owner, kind(kind_name), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << kind_name;
    if (!std::holds_alternative<Record>(w)) return 0;
    return std::get<Record>(w)["id"].get<std::int64_t>();
  }
  std::int64_t new_listing(std::int64_t owner, const std::string& company,
                           const std::string& role) {
    std::int64_t c = create(owner, "companies", {{"name", company}});
    return create(owner, "listings", {{"role", role}, {"company_id", std::to_string(c)}});
  }
  // A fresh application on `listing_` in `status`.
  Record applied(const std::string& status = "draft") {
    auto w = apps().apply(owner_, listing_, status);
    EXPECT_TRUE(std::holds_alternative<Record>(w));
    return std::holds_alternative<Record>(w) ? std::get<Record>(w) : json::object();
  }
  Record moved(std::int64_t id, const std::string& to, const std::string& reason = "") {
    StatusChange c;
    c.to = to;
    c.end_reason = reason;
    auto w = apps().change_status(owner_, id, c);
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << to;
    return std::holds_alternative<Record>(w) ? std::get<Record>(w) : json::object();
  }
  std::vector<Record> timeline(std::int64_t id) {
    auto t = apps().timeline(owner_, id);
    EXPECT_TRUE(t);
    return t.value_or(std::vector<Record>{});
  }
  std::int64_t interview(std::int64_t app, const std::string& kind_name) {
    return create(owner_, "interviews",
                  {{"application_id", std::to_string(app)},
                   {"kind", kind_name},
                   {"starts_at", "2027-01-20T09:00"}});
  }

  std::unique_ptr<Applications> apps_;
  std::int64_t listing_ = 0;
};

TEST_P(ApplicationsTest, ApplyMakesADraftWithItsFirstNote) {
  Record a = applied();
  EXPECT_EQ(a["status"], "draft");
  EXPECT_EQ(a["listing_id"], listing_);
  EXPECT_EQ(a["listing_role"], "Backend engineer");
  EXPECT_EQ(a["company_name"], "Acme");
  EXPECT_TRUE(a["applied_at"].is_null()) << "a draft was not sent";
  EXPECT_TRUE(a["closed_at"].is_null());
  auto t = timeline(a["id"].get<std::int64_t>());
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0]["kind"], "note");
  EXPECT_EQ(t[0]["summary"], "Application created");
  EXPECT_EQ(t[0]["occurred_at"], clock_.now_ms());
}

TEST_P(ApplicationsTest, ApplyStraightToAStatusGoesThroughTheMachine) {
  auto w = apps().apply(owner_, listing_, "applied", "API token cli");
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  Record a = std::get<Record>(w);
  EXPECT_EQ(a["status"], "applied");
  EXPECT_EQ(a["applied_at"], clock_.now_ms());
  auto t = timeline(a["id"].get<std::int64_t>());
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0]["kind"], "status_change") << "newest first";
  EXPECT_EQ(t[0]["from_status"], "draft");
  EXPECT_EQ(t[0]["to_status"], "applied");
  EXPECT_EQ(t[0]["actor"], "API token cli");
  EXPECT_EQ(t[1]["summary"], "Application created");
  EXPECT_EQ(t[1]["actor"], "API token cli");
}

TEST_P(ApplicationsTest, ApplyRefusesOthersListingsAndUnknownStatuses) {
  std::int64_t theirs = new_listing(other_, "Theirs", "QA");
  EXPECT_TRUE(std::holds_alternative<NotFound>(apps().apply(owner_, theirs)));
  EXPECT_TRUE(std::holds_alternative<NotFound>(apps().apply(owner_, 999999)));
  auto w = apps().apply(owner_, listing_, "hired");
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(w));
  EXPECT_TRUE(std::get<FieldErrors>(w).has("status"));
  EXPECT_EQ(count("applications"), 0);
  EXPECT_EQ(count("application_events"), 0);
}

TEST_P(ApplicationsTest, SameStatusIsANoOpUnlessAReasonIsAdded) {
  Record a = applied("applied");
  std::int64_t id = a["id"].get<std::int64_t>();
  std::int64_t events = count("application_events");
  clock_.advance(1h);
  Record same = moved(id, "applied");
  EXPECT_EQ(same["status"], "applied");
  EXPECT_EQ(same["updated_at"], a["updated_at"]) << "nothing was written";
  EXPECT_EQ(count("application_events"), events);

  moved(id, "rejected");
  std::int64_t closed_at =
      (*records().get(owner_, kind("applications"), id))["closed_at"].get<std::int64_t>();
  clock_.advance(1h);
  Record again = moved(id, "rejected", "filled_internally");
  EXPECT_EQ(again["status"], "rejected");
  EXPECT_EQ(again["closed_at"], closed_at) << "still closed since the first time";
  auto t = timeline(id);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0]["from_status"], "rejected");
  EXPECT_EQ(t[0]["to_status"], "rejected");
  EXPECT_EQ(t[0]["end_reason"], "filled_internally");
  EXPECT_TRUE(t[1]["end_reason"].is_null());
}

TEST_P(ApplicationsTest, AppliedAtIsSetOnceByTheFirstSentStatus) {
  Record a = applied();
  std::int64_t id = a["id"].get<std::int64_t>();
  clock_.advance(1h);
  EXPECT_TRUE(moved(id, "withdrawn")["applied_at"].is_null()) << "withdrawn is not sent";
  moved(id, "draft");
  std::int64_t given = *parse_time("2027-01-10T12:00:00Z");
  StatusChange c;
  c.to = "acknowledged";
  c.applied_at = given;
  auto w = apps().change_status(owner_, id, c);
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_EQ(std::get<Record>(w)["applied_at"], given) << "the date the person gives";
  clock_.advance(24h);
  EXPECT_EQ(moved(id, "screening")["applied_at"], given);
  c.to = "applied";
  c.applied_at = clock_.now_ms();
  w = apps().change_status(owner_, id, c);
  EXPECT_EQ(std::get<Record>(w)["applied_at"], given) << "later changes keep it";
  EXPECT_EQ(moved(id, "draft")["applied_at"], given);
}

TEST_P(ApplicationsTest, ClosedAtFollowsTheOpenSet) {
  std::int64_t id = applied("applied")["id"].get<std::int64_t>();
  clock_.advance(1h);
  std::int64_t left = clock_.now_ms();
  EXPECT_EQ(moved(id, "ghosted")["closed_at"], left);
  clock_.advance(1h);
  EXPECT_EQ(moved(id, "rejected")["closed_at"], left) << "end to end keeps the first close";
  clock_.advance(1h);
  EXPECT_TRUE(moved(id, "interviewing")["closed_at"].is_null()) << "reopening clears it";
  clock_.advance(1h);
  EXPECT_EQ(moved(id, "accepted")["closed_at"], clock_.now_ms());
}

TEST_P(ApplicationsTest, BadChangesWriteNothing) {
  std::int64_t id = applied()["id"].get<std::int64_t>();
  std::int64_t events = count("application_events");
  StatusChange c;
  c.to = "hired";
  auto w = apps().change_status(owner_, id, c);
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(w));
  EXPECT_TRUE(std::get<FieldErrors>(w).has("status"));
  c.to = "rejected";
  c.end_reason = "bored";
  w = apps().change_status(owner_, id, c);
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(w));
  EXPECT_TRUE(std::get<FieldErrors>(w).has("end_reason"));
  EXPECT_EQ((*records().get(owner_, kind("applications"), id))["status"], "draft");
  EXPECT_EQ(count("application_events"), events);

  c.end_reason = "";
  EXPECT_TRUE(std::holds_alternative<NotFound>(apps().change_status(other_, id, c)));
  EXPECT_EQ((*records().get(owner_, kind("applications"), id))["status"], "draft");
  EXPECT_EQ(count("application_events"), events);
}

TEST_P(ApplicationsTest, StatusEventRecordsWhatHappened) {
  std::int64_t id = applied()["id"].get<std::int64_t>();
  clock_.advance(5min);
  StatusChange c;
  c.to = "rejected";
  c.note = "Polite e-mail";
  c.end_reason = "not_a_match";
  c.actor = "plugin mailbox";
  ASSERT_TRUE(std::holds_alternative<Record>(apps().change_status(owner_, id, c)));
  auto t = timeline(id);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0]["kind"], "status_change");
  EXPECT_EQ(t[0]["from_status"], "draft");
  EXPECT_EQ(t[0]["to_status"], "rejected");
  EXPECT_EQ(t[0]["body"], "Polite e-mail");
  EXPECT_EQ(t[0]["end_reason"], "not_a_match");
  EXPECT_EQ(t[0]["actor"], "plugin mailbox");
  EXPECT_EQ(t[0]["occurred_at"], clock_.now_ms());
  EXPECT_FALSE(apps().timeline(other_, id)) << "not another person's";
}

TEST_P(ApplicationsTest, TimelineIsNewestFirst) {
  std::int64_t id = applied()["id"].get<std::int64_t>();
  clock_.advance(1h);
  NewEvent e;
  e.kind = "call";
  e.summary = "Called the recruiter";
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(apps().add(owner_, id, e)));
  clock_.advance(1h);
  moved(id, "applied");
  // Back-dated: it happened before the call, though written last.
  e.kind = "email_sent";
  e.summary = "Sent the CV";
  e.occurred_at = clock_.now_ms() - 90 * 60 * 1000;
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(apps().add(owner_, id, e)));
  auto t = timeline(id);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0]["kind"], "status_change");
  EXPECT_EQ(t[1]["kind"], "call");
  EXPECT_EQ(t[2]["kind"], "email_sent");
  EXPECT_EQ(t[2]["created_at"], clock_.now_ms()) << "written now, though it happened earlier";
  EXPECT_EQ(t[3]["summary"], "Application created");
  EXPECT_EQ((*records().get(owner_, kind("applications"), id))["updated_at"], clock_.now_ms())
      << "a back-dated event still counts as a change now for sync clients";
}

TEST_P(ApplicationsTest, PeopleCannotWriteSystemEvents) {
  std::int64_t id = applied()["id"].get<std::int64_t>();
  std::int64_t events = count("application_events");
  auto refused = [&](const std::string& kind_name, const std::string& summary,
                     const std::string& field) {
    NewEvent e;
    e.kind = kind_name;
    e.summary = summary;
    auto r = apps().add(owner_, id, e);
    EXPECT_TRUE(std::holds_alternative<FieldErrors>(r) && std::get<FieldErrors>(r).has(field))
        << kind_name << " / " << summary.size();
  };
  refused("status_change", "Moved it myself", "kind");
  refused("interview_scheduled", "Booked", "kind");
  refused("interview_cancelled", "Off", "kind");
  refused("interview_no_show", "Missed", "kind");
  refused("gossip", "Heard things", "kind");
  refused("note", "   ", "summary");
  refused("note", std::string(251, 'x'), "summary");
  EXPECT_EQ(count("application_events"), events);
  NewEvent ok;
  ok.kind = "note";
  std::string exactly;
  for (int i = 0; i < 250; ++i) exactly += "ü";
  ok.summary = exactly;
  EXPECT_TRUE(std::holds_alternative<std::int64_t>(apps().add(owner_, id, ok)))
      << "250 characters, whatever their bytes";
  EXPECT_TRUE(std::holds_alternative<NotFound>(apps().add(other_, id, ok)));
  EXPECT_EQ(count("application_events"), events + 1);
}

TEST_P(ApplicationsTest, CreatingAnInterviewOrOfferWritesItsEvent) {
  std::int64_t id = applied("applied")["id"].get<std::int64_t>();
  std::int64_t i = interview(id, "video");
  auto t = timeline(id);
  ASSERT_FALSE(t.empty());
  EXPECT_EQ(t[0]["kind"], "interview_scheduled");
  EXPECT_EQ(t[0]["interview_id"], i);
  create(owner_, "offers", {{"application_id", std::to_string(id)}, {"base_pay", "50000"}});
  EXPECT_EQ(timeline(id)[0]["kind"], "offer");
  // Nor through another person's application.
  Input in;
  in.values = {{"application_id", std::to_string(id)}, {"starts_at", "2027-01-20T09:00"}};
  auto w = records().create(other_, kind("interviews"), in);
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(w));
  EXPECT_TRUE(std::get<FieldErrors>(w).has("application_id"));
  EXPECT_EQ(timeline(id).size(), t.size() + 1);
}

TEST_P(ApplicationsTest, AHeldInterviewMovesALaggingStatusForward) {
  std::int64_t id = applied("applied")["id"].get<std::int64_t>();
  std::int64_t phone = interview(id, "phone");
  clock_.advance(1h);
  auto w = apps().set_outcome(owner_, phone, "done");
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_EQ(std::get<Record>(w)["outcome"], "done");
  auto a = *records().get(owner_, kind("applications"), id);
  EXPECT_EQ(a["status"], "screening") << "a phone screen moves to screening";
  auto t = timeline(id);
  EXPECT_EQ(t[0]["kind"], "status_change");
  EXPECT_EQ(t[0]["from_status"], "applied");
  EXPECT_EQ(t[0]["to_status"], "screening");

  std::int64_t video = interview(id, "video");
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, video, "done")));
  EXPECT_EQ((*records().get(owner_, kind("applications"), id))["status"], "interviewing");

  // A later phone call does not move interviewing back to screening.
  std::int64_t phone2 = interview(id, "phone");
  std::size_t events = timeline(id).size();
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, phone2, "done")));
  EXPECT_EQ((*records().get(owner_, kind("applications"), id))["status"], "interviewing");
  EXPECT_EQ(timeline(id).size(), events);
}

TEST_P(ApplicationsTest, AHeldInterviewNeverMovesAnOfferBackOrReopens) {
  std::int64_t id = applied("applied")["id"].get<std::int64_t>();
  std::int64_t onsite = interview(id, "onsite");
  moved(id, "offer");
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, onsite, "done")));
  EXPECT_EQ((*records().get(owner_, kind("applications"), id))["status"], "offer");

  std::int64_t panel = interview(id, "panel");
  moved(id, "rejected");
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, panel, "done")));
  EXPECT_EQ((*records().get(owner_, kind("applications"), id))["status"], "rejected")
      << "a closed application stays closed";
}

TEST_P(ApplicationsTest, CancelledAndMissedInterviewsWriteTheirEvents) {
  std::int64_t id = applied("applied")["id"].get<std::int64_t>();
  std::int64_t i = interview(id, "video");
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, i, "cancelled")));
  auto t = timeline(id);
  EXPECT_EQ(t[0]["kind"], "interview_cancelled");
  EXPECT_EQ(t[0]["interview_id"], i);
  std::size_t n = t.size();
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, i, "cancelled")));
  EXPECT_EQ(timeline(id).size(), n) << "the same outcome again writes nothing";
  EXPECT_EQ((*records().get(owner_, kind("applications"), id))["status"], "applied");

  std::int64_t j = interview(id, "video");
  ASSERT_TRUE(std::holds_alternative<Record>(apps().set_outcome(owner_, j, "no_show")));
  EXPECT_EQ(timeline(id)[0]["kind"], "interview_no_show");

  auto bad = apps().set_outcome(owner_, j, "great");
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(bad));
  EXPECT_TRUE(std::holds_alternative<NotFound>(apps().set_outcome(other_, j, "done")));
  EXPECT_EQ((*records().get(owner_, kind("interviews"), j))["outcome"], "no_show");
}

TEST_P(ApplicationsTest, RemindersAreMarkedDoneAndUndone) {
  std::int64_t r =
      create(owner_, "reminders", {{"title", "Chase"}, {"due_at", "2027-01-14T09:00"}});
  db().query("UPDATE reminders SET notified_at = ? WHERE id = ?", {clock_.now_ms(), r});
  clock_.advance(1h);
  std::int64_t done_at = clock_.now_ms();
  auto w = apps().set_done(owner_, r, true);
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_EQ(std::get<Record>(w)["done_at"], done_at);
  clock_.advance(1h);
  w = apps().set_done(owner_, r, true);
  EXPECT_EQ(std::get<Record>(w)["done_at"], done_at) << "done twice keeps the first time";
  EXPECT_TRUE(std::holds_alternative<NotFound>(apps().set_done(other_, r, false)));
  EXPECT_EQ((*records().get(owner_, kind("reminders"), r))["done_at"], done_at);
  w = apps().set_done(owner_, r, false);
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  EXPECT_TRUE(std::get<Record>(w)["done_at"].is_null());
  EXPECT_TRUE(db().query("SELECT notified_at FROM reminders WHERE id = ?", {r})[0].is_null(0))
      << "undone: it may be announced again";
}

TEST_P(ApplicationsTest, TagsAreReplacedAndMustBeTheOwners) {
  std::int64_t id = applied()["id"].get<std::int64_t>();
  std::int64_t remote = create(owner_, "tags", {{"name", "Remote"}, {"colour", "blue"}});
  std::int64_t dream = create(owner_, "tags", {{"name", "Dream job"}});
  std::int64_t theirs = create(other_, "tags", {{"name", "Theirs"}});

  auto r = apps().set_tags(owner_, id, {remote, dream, remote});
  ASSERT_TRUE(std::holds_alternative<bool>(r));
  auto tags = apps().tags_of(owner_, id);
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags[0]["name"], "Dream job") << "by name";
  EXPECT_EQ(tags[1]["name"], "Remote");
  EXPECT_EQ(tags[1]["colour"], "blue");

  r = apps().set_tags(owner_, id, {remote, theirs});
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(r));
  EXPECT_EQ(apps().tags_of(owner_, id).size(), 2u) << "refused: nothing changed";
  EXPECT_TRUE(std::holds_alternative<NotFound>(apps().set_tags(other_, id, {theirs})));
  EXPECT_TRUE(apps().tags_of(other_, id).empty());

  ASSERT_TRUE(std::holds_alternative<bool>(apps().set_tags(owner_, id, {dream})));
  tags = apps().tags_of(owner_, id);
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_EQ(tags[0]["id"], dream);
  ASSERT_TRUE(records().remove(owner_, kind("tags"), dream));
  EXPECT_TRUE(apps().tags_of(owner_, id).empty()) << "a deleted tag leaves its applications";
}

PETO_BOTH_BACKENDS(ApplicationsTest);

}  // namespace
}  // namespace peto::domain
