// The announcers and the outbox on both backends: what is announced, once;
// what each answer of a receiver does to a delivery; and docs/RULES.md #1120's query count.
#include <set>

#include "connections/connections.h"
#include "domain/applications.h"
#include "domain/records.h"
#include "notify/notifiers.h"
#include "notify/outbox.h"
#include "steps/closing.h"
#include "steps/deliveries.h"
#include "steps/quiet.h"
#include "steps/reminders.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/factory.h"
#include "tests/support/hook_receiver.h"

namespace peto {
namespace {

using nlohmann::json;
using testing::HookReceiver;

constexpr Millis kMinute = 60'000;
constexpr Millis kDay = 86'400'000;
constexpr const char* kSecret = "a-webhook-secret-of-some-length";

class AnnounceTest : public testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped()) return;
    config_.secret_key = "announce-test-secret-key-0123456789abcdef";
    config_.allow_private_destinations = true;  // the receiver is on 127.0.0.1
  }

  // Accounts and records, written by the domain as peto writes them.
  testing::Factory make() { return testing::Factory(db(), clock_); }
  std::int64_t webhook(std::int64_t owner, const std::string& url, json extra = json::object()) {
    json values = {{"url", url}, {"secret", kSecret}};
    values.update(extra);
    auto made =
        connections::Connections(db(), clock_, config_).create(owner, "webhook", "hook", values);
    auto* c = std::get_if<connections::Connection>(&made);
    if (c == nullptr) {
      ADD_FAILURE() << "webhook refused: " << std::get<notify::ConfigErrors>(made).begin()->second;
      return 0;
    }
    return c->id;
  }

  Millis now() const { return clock_.now_ms(); }
  engine::StepResult run(engine::Step& step) {
    store::Cache cache(db(), clock_);
    engine::PassContext ctx{db(), cache, clock_, config_, std::chrono::milliseconds(0), "test"};
    return step.run(ctx);
  }
  std::int64_t count(const std::string& sql, const store::Params& p = {}) {
    return db().query(sql, p)[0].int_at(0);
  }
  json delivery(std::int64_t id) {
    auto r = db().query(
        "SELECT status, attempts, next_attempt_at, last_status, last_error, body FROM deliveries"
        " WHERE id = ?",
        {id})[0];
    return {{"status", r.text(0)},
            {"attempts", r.int_at(1)},
            {"next", r.is_null(2) ? json(nullptr) : json(r.int_at(2) - now())},
            {"last_status", r.is_null(3) ? json(nullptr) : json(r.int_at(3))},
            {"last_error", r.text(4)},
            {"body", r.text(5)}};
  }
};

TEST_P(AnnounceTest, DueRemindersAreAnnouncedOnceToTheInboxAndEachWantingConnection) {
  HookReceiver hooks;
  auto ada = make().account("ada@example.com");
  auto idle = make().account("idle@example.com", {.active = false});
  webhook(ada, hooks.url());
  // A second connection that switched reminders off gets nothing.
  webhook(ada, hooks.url() + "?quiet", {{"event_reminder_due", false}});
  auto due1 = make().reminder(ada, "Call Grace back", now() - kMinute);
  auto due2 = make().reminder(ada, "Send the portfolio", now());
  make().reminder(ada, "Later", now() + kMinute);
  auto done = make().reminder(ada, "Done already", now() - kMinute);
  db().query("UPDATE reminders SET done_at = ? WHERE id = ?", {now(), done});
  auto waiting = make().reminder(idle, "Inactive owner", now() - kMinute);

  steps::Reminders reminders;
  EXPECT_EQ(run(reminders)["announced"], 2);
  EXPECT_EQ(run(reminders)["announced"], 0) << "a second pass announces nothing again";
  EXPECT_EQ(count("SELECT COUNT(*) FROM inbox_notices WHERE owner_id = ?", {ada}), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM deliveries"), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM reminders WHERE notified_at IS NOT NULL"), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM reminders WHERE id = ? AND notified_at IS NULL", {waiting}),
            1)
      << "an inactive owner's reminder waits";

  steps::Deliveries deliveries;
  EXPECT_EQ(run(deliveries)["sent"], 2);
  auto got = hooks.received();
  ASSERT_EQ(got.size(), 2u);
  std::set<std::string> keys;
  for (const auto& h : got) {
    EXPECT_TRUE(notify::verify_webhook_signature(h.signature, kSecret, h.body, now() / 1000))
        << h.signature;
    EXPECT_FALSE(
        notify::verify_webhook_signature(h.signature, kSecret, h.body + " ", now() / 1000));
    EXPECT_EQ(h.event, "reminder_due");
    auto n = notify::from_payload(h.body);
    ASSERT_TRUE(n);
    keys.insert(n->key);
  }
  EXPECT_EQ(keys, (std::set<std::string>{
                      "reminder:" + std::to_string(due1) + ":" + format_time_s(now() - kMinute),
                      "reminder:" + std::to_string(due2) + ":" + format_time_s(now())}));
  EXPECT_EQ(count("SELECT COUNT(*) FROM deliveries WHERE status = 'sent' AND body = ''"), 2)
      << "a delivered body is cleared";
  EXPECT_EQ(run(deliveries)["sent"], 0);
  EXPECT_EQ(hooks.received().size(), 2u);
}

// One delivery per receiver answer: the state after the first attempt.
TEST_P(AnnounceTest, EachAnswerOfTheReceiverDecidesTheDeliverysNextState) {
  struct Case {
    int status;
    const char* state;
    bool retried;
  };
  const std::vector<Case> cases = {{200, "sent", false},     {204, "sent", false},
                                   {301, "given_up", false}, {302, "failed", true},
                                   {308, "given_up", false}, {404, "given_up", false},
                                   {408, "failed", true},    {429, "failed", true},
                                   {500, "failed", true},    {503, "failed", true}};
  HookReceiver hooks;
  auto ada = make().account("ada@example.com");
  auto hook = webhook(ada, hooks.url());
  steps::Reminders reminders;
  steps::Deliveries deliveries;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.status);
    hooks.set_status(c.status);
    make().reminder(ada, "status " + std::to_string(c.status), now());
    run(reminders);
    run(deliveries);
    auto id = db().query("SELECT MAX(id) FROM deliveries")[0].int_at(0);
    auto d = delivery(id);
    EXPECT_EQ(d["status"], c.state);
    EXPECT_EQ(d["attempts"], 1);
    EXPECT_EQ(d["last_status"], c.status);
    if (c.retried)
      EXPECT_EQ(d["next"], 5 * kMinute);
    else
      EXPECT_TRUE(d["next"].is_null());
    if (c.status == 301 || c.status == 308) {
      EXPECT_NE(d["last_error"].get<std::string>().find("redirect"), std::string::npos)
          << d["last_error"];
    }
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM connections WHERE id = ? AND enabled = 1", {hook}), 1)
      << "an answer of the receiver never switches the connection off";
}

TEST_P(AnnounceTest, AFailingReceiverIsTriedEightTimesOnADoublingScheduleThenGivenUp) {
  HookReceiver hooks;
  hooks.set_status(500);
  auto ada = make().account("ada@example.com");
  webhook(ada, hooks.url());
  make().reminder(ada, "Keeps failing", now());
  steps::Reminders reminders;
  steps::Deliveries deliveries;
  run(reminders);
  std::vector<Millis> waits;
  for (int attempt = 1; attempt <= 8; ++attempt) {
    EXPECT_EQ(run(deliveries)[attempt < 8 ? "failed" : "given_up"], 1) << attempt;
    EXPECT_EQ(run(deliveries)["failed"], 0) << "not due again at once";
    auto d = delivery(db().query("SELECT MAX(id) FROM deliveries")[0].int_at(0));
    EXPECT_EQ(d["attempts"], attempt);
    if (attempt < 8) {
      waits.push_back(d["next"].get<Millis>() / kMinute);
      clock_.advance(std::chrono::milliseconds(d["next"].get<Millis>()));
    } else {
      EXPECT_EQ(d["status"], "given_up");
      EXPECT_TRUE(d["next"].is_null());
    }
  }
  EXPECT_EQ(waits, (std::vector<Millis>{5, 10, 20, 40, 80, 160, 320}));
  auto got = hooks.received();
  ASSERT_EQ(got.size(), 8u);
  for (const auto& h : got) {
    EXPECT_EQ(h.body, got[0].body) << "every attempt sends the same notification";
    EXPECT_EQ(h.delivery, got[0].delivery) << "and the same Peto-Delivery id";
  }
}

TEST_P(AnnounceTest, RefusedConnectionsAreRetriedAndRefusedDestinationsGivenUp) {
  HookReceiver hooks;
  auto port = hooks.port();
  hooks.stop();  // nothing listens there now: the connection is refused
  auto ada = make().account("ada@example.com");
  webhook(ada, "http://127.0.0.1:" + std::to_string(port) + "/hook");
  make().reminder(ada, "Nobody home", now());
  steps::Reminders reminders;
  steps::Deliveries deliveries;
  run(reminders);
  run(deliveries);
  auto d = delivery(db().query("SELECT MAX(id) FROM deliveries")[0].int_at(0));
  EXPECT_EQ(d["status"], "failed") << "a refused connection is tried again";
  EXPECT_EQ(d["next"], 5 * kMinute);

  // Private destinations not allowed: loopback is refused, for good.
  config_.allow_private_destinations = false;
  clock_.advance(std::chrono::minutes(5));
  run(deliveries);
  d = delivery(db().query("SELECT MAX(id) FROM deliveries")[0].int_at(0));
  EXPECT_EQ(d["status"], "given_up") << d["last_error"];
  EXPECT_NE(d["last_error"].get<std::string>().find("loopback"), std::string::npos)
      << d["last_error"];
  EXPECT_NE(db().query("SELECT last_error FROM connections")[0].text(0), "")
      << "the refusal is written on the connection";
}

TEST_P(AnnounceTest, WaitingRowsSpendNoAttemptsAndAGoneConnectionGivesUp) {
  HookReceiver hooks;
  auto ada = make().account("ada@example.com");
  auto hook = webhook(ada, hooks.url());
  make().reminder(ada, "First", now());
  steps::Reminders reminders;
  steps::Deliveries deliveries;
  run(reminders);
  db().query("UPDATE connections SET enabled = 0 WHERE id = ?", {hook});
  EXPECT_TRUE(run(deliveries).all_zero()) << "a switched-off connection's deliveries wait";
  db().query("UPDATE connections SET enabled = 1 WHERE id = ?", {hook});
  db().query("UPDATE users SET active = 0 WHERE id = ?", {ada});
  EXPECT_TRUE(run(deliveries).all_zero()) << "an inactive owner's deliveries wait";
  EXPECT_EQ(count("SELECT attempts FROM deliveries"), 0);
  db().query("UPDATE users SET active = 1 WHERE id = ?", {ada});
  connections::Connections(db(), clock_, config_).remove(ada, hook);
  EXPECT_EQ(run(deliveries)["given_up"], 1);
  EXPECT_EQ(hooks.received().size(), 0u);
}

TEST_P(AnnounceTest, AnUnusableConnectionIsRetiredAndItsSecretsWiped) {
  // ntfy answers 401: the token was revoked, so retrying cannot help.
  HookReceiver ntfy;
  ntfy.set_status(401);
  auto ada = make().account("ada@example.com");
  auto made = connections::Connections(db(), clock_, config_)
                  .create(ada, "ntfy", "phone",
                          {{"server", "http://127.0.0.1:" + std::to_string(ntfy.port())},
                           {"topic", "peto-test"},
                           {"token", "tk_revoked_token"}});
  ASSERT_TRUE(std::holds_alternative<connections::Connection>(made))
      << std::get<notify::ConfigErrors>(made).begin()->first;
  make().reminder(ada, "Bell", now());
  steps::Reminders reminders;
  steps::Deliveries deliveries;
  run(reminders);
  EXPECT_EQ(run(deliveries)["retired"], 1);
  auto c = db().query("SELECT enabled, secrets_encrypted, last_error FROM connections")[0];
  EXPECT_EQ(c.int_at(0), 0);
  EXPECT_EQ(c.text(1), "");
  EXPECT_NE(c.text(2), "");
  EXPECT_EQ(count("SELECT COUNT(*) FROM deliveries WHERE status = 'given_up'"), 1);
}

// docs/RULES.md #1120: the gone-quiet step's queries do not grow with the applications.
TEST_P(AnnounceTest, QuietStepQueryCountDoesNotGrowWithTheApplications) {
  auto statements_for = [&](int per_owner) {
    db().query("DELETE FROM applications");
    db().query("DELETE FROM deliveries");
    db().query("DELETE FROM inbox_notices");
    std::vector<std::int64_t> owners;
    for (int o = 0; o < 3; ++o) {
      auto email = "quiet" + std::to_string(per_owner) + "-" + std::to_string(o) + "@example.com";
      auto owner = make().account(email, {.language = o == 1 ? "fr" : ""});
      owners.push_back(owner);
      webhook(owner, "http://127.0.0.1:9/hook", {{"event_went_quiet", true}});
      auto co = make().company(owner, "Acme");
      for (int i = 0; i < per_owner; ++i)
        make().application(owner, make().listing(owner, co, "Role " + std::to_string(i)), "applied",
                           now() - 30 * kDay);
      // An application still in its first days and an ended one are not quiet.
      make().application(owner, make().listing(owner, co, "Fresh"), "applied", now() - kDay);
      make().application(owner, make().listing(owner, co, "Ended"), "rejected", now() - 60 * kDay);
    }
    steps::Quiet quiet;
    auto before = db().statements_run();
    auto counts = run(quiet);
    auto announcing = db().statements_run() - before;
    EXPECT_EQ(counts["applications"], 3 * per_owner);
    EXPECT_EQ(counts["messages"], 3);
    before = db().statements_run();
    EXPECT_EQ(run(quiet)["applications"], 0) << "nothing new the second time";
    auto idle = db().statements_run() - before;
    for (auto owner : owners) {
      db().query("UPDATE users SET active = 0 WHERE id = ?", {owner});
    }
    return std::pair{announcing, idle};
  };
  auto few = statements_for(1);
  auto many = statements_for(100);
  EXPECT_EQ(few.first, many.first) << "announcing 3 or 300 applications";
  EXPECT_EQ(few.second, many.second) << "a pass with nothing new";
  EXPECT_LE(few.second, 1u + 3u) << "one query for the owners, one per owner";
}

TEST_P(AnnounceTest, QuietMessageNamesFiveThenCountsTheRestInTheOwnersLanguage) {
  auto ada = make().account("ada@example.com", {.language = "fr"});
  auto co = make().company(ada, "Acme");
  for (int i = 0; i < 8; ++i)
    make().application(ada, make().listing(ada, co, "Role " + std::to_string(i)), "applied",
                       now() - 30 * kDay);
  steps::Quiet quiet;
  EXPECT_EQ(run(quiet)["applications"], 8);
  auto n = db().query("SELECT title, body FROM inbox_notices WHERE owner_id = ?", {ada});
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].text(0), "8 candidatures sont restées sans nouvelles");
  EXPECT_NE(n[0].text(1).find("et 3 autres"), std::string::npos) << n[0].text(1);
  EXPECT_NE(n[0].text(1).find("Role 0 chez Acme"), std::string::npos) << n[0].text(1);

  // New activity on one starts a new silence, told again once it is quiet again.
  auto app = db().query("SELECT MIN(id) AS id FROM applications")[0].int_at("id");
  clock_.advance(std::chrono::hours(24));
  domain::Records records(db(), clock_);
  domain::NewEvent chased;
  chased.kind = "note";
  chased.summary = "chased";
  ASSERT_TRUE(
      std::holds_alternative<std::int64_t>(domain::Applications(records).add(ada, app, chased)));
  EXPECT_TRUE(run(quiet).all_zero());
  clock_.advance(std::chrono::hours(24 * 22));
  EXPECT_EQ(run(quiet)["applications"], 1);
}

TEST_P(AnnounceTest, ClosingListingsAreToldOncePerDateInTheOwnersCalendar) {
  // 23:30 UTC is already tomorrow in Auckland.
  clock_.set(*parse_time("2026-12-02T23:30:00Z"));
  auto kiwi = make().account("kiwi@example.com",
                             {.time_zone = "Pacific/Auckland", .closing_notice_days = 2});
  auto co = make().company(kiwi, "Acme");
  auto soon = make().listing(kiwi, co, "Soon",
                             {.closes_on = "2026-12-05"});  // 2 days after the 3rd in Auckland
  make().listing(kiwi, co, "Too far", {.closes_on = "2026-12-06"});
  make().listing(kiwi, co, "Discarded", {.closes_on = "2026-12-04", .state = "discarded"});
  auto applied = make().listing(kiwi, co, "Applied", {.closes_on = "2026-12-04"});
  make().application(kiwi, applied, "applied", now());
  make().listing(kiwi, co, "Past", {.closes_on = "2026-12-02"});

  steps::Closing closing;
  EXPECT_EQ(run(closing)["listings"], 1);
  EXPECT_TRUE(run(closing).all_zero()) << "told once for this date";
  db().query("UPDATE listings SET closes_on = '2026-12-04' WHERE id = ?", {soon});
  EXPECT_EQ(run(closing)["listings"], 1) << "a moved date is told again";
  EXPECT_EQ(count("SELECT COUNT(*) FROM inbox_notices WHERE event = 'posting_closing'"), 2);
}

TEST_P(AnnounceTest, OldDeliveriesAndNoticesAreForgotten) {
  HookReceiver hooks;
  auto ada = make().account("ada@example.com");
  webhook(ada, hooks.url());
  make().reminder(ada, "One", now());
  steps::Reminders reminders;
  steps::Deliveries deliveries;
  run(reminders);
  run(deliveries);
  notify::Outbox outbox(clock_, config_);
  EXPECT_EQ(notify::Outbox::unread(*db().acquire(), ada), 1);
  EXPECT_EQ(outbox.inbox(*db().acquire(), ada).size(), 1u);
  EXPECT_EQ(notify::Outbox::unread(*db().acquire(), ada), 1) << "reading changes nothing";
  EXPECT_EQ(outbox.mark_shown(*db().acquire(), ada), 1);
  EXPECT_EQ(notify::Outbox::unread(*db().acquire(), ada), 0);
  EXPECT_EQ(outbox.forget_old(*db().acquire()), 0);
  clock_.advance(std::chrono::hours(25));
  EXPECT_EQ(outbox.forget_old(*db().acquire()), 1) << "a notice shown a day ago";
  clock_.advance(std::chrono::hours(24 * 7));
  EXPECT_EQ(outbox.forget_old(*db().acquire()), 1) << "a delivery sent a week ago";
}

// What the person did is news only to the connections that switched it on;
// the inbox never repeats it to them.
TEST_P(AnnounceTest, WhatThePersonDidGoesOnlyToConnectionsThatWantIt) {
  auto ada = make().account("ada@example.com");
  // Applied before the connections exist, so that its own draft → applied
  // change is announced to nobody and the one below is the only status_changed.
  auto app = make().application(ada, make().listing(ada, make().company(ada, "Acme"), "Engineer"),
                                "applied");
  auto hook = webhook(ada, "http://127.0.0.1:9/hook");  // webhooks want these by default
  auto quiet = webhook(ada, "http://127.0.0.1:9/other", {{"event_status_changed", false}});
  domain::Records records(db(), clock_);
  domain::Applications applications(records);
  domain::StatusChange change;
  change.to = "screening";
  ASSERT_TRUE(std::holds_alternative<domain::Record>(applications.change_status(ada, app, change)));
  domain::Input interview;
  interview.from_form = false;
  interview.values = {{"application_id", app}, {"kind", "video"}, {"starts_at", now() + kDay}};
  ASSERT_TRUE(std::holds_alternative<domain::Record>(
      records.create(ada, domain::kind("interviews"), interview)));

  auto events_of = [&](std::int64_t connection) {
    std::set<std::string> out;
    for (const auto& r :
         db().query("SELECT event FROM deliveries WHERE connection_id = ?", {connection}))
      out.insert(r.text(0));
    return out;
  };
  EXPECT_EQ(events_of(hook), (std::set<std::string>{"status_changed", "interview_scheduled"}));
  EXPECT_EQ(events_of(quiet), (std::set<std::string>{"interview_scheduled"}));
  EXPECT_EQ(count("SELECT COUNT(*) FROM inbox_notices"), 0);
  auto body = db().query("SELECT body FROM deliveries WHERE event = 'status_changed'")[0].text(0);
  EXPECT_NE(body.find("Engineer at Acme: Screening"), std::string::npos) << body;
}

TEST_P(AnnounceTest, AReminderMovedToAnotherTimeIsAnnouncedAgain) {
  auto ada = make().account("ada@example.com");
  auto id = make().reminder(ada, "Follow up", now());
  steps::Reminders reminders;
  EXPECT_EQ(run(reminders)["announced"], 1);
  domain::Records records(db(), clock_);
  domain::Input moved;
  moved.from_form = false;
  moved.partial = true;
  moved.values = {{"due_at", now() + kDay}};
  ASSERT_TRUE(std::holds_alternative<domain::Record>(
      records.update(ada, domain::kind("reminders"), id, moved)));
  EXPECT_TRUE(run(reminders).all_zero()) << "not before its new time";
  clock_.advance(std::chrono::hours(24));
  EXPECT_EQ(run(reminders)["announced"], 1);
  EXPECT_EQ(count("SELECT COUNT(*) FROM inbox_notices"), 2) << "two times, two keys";
}

PETO_BOTH_BACKENDS(AnnounceTest);

}  // namespace
}  // namespace peto
