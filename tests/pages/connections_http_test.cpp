// /profile/connections and /inbox over real HTTP: a webhook added through the
// form keeps its secret sealed and never shows it again; a blank secret on
// edit keeps it; bad input is 422 with nothing written; somebody else's
// connection is the 404 page; the test button reaches a real receiver; the
// bell counts unread notices and /inbox reads them.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "connections/connections.h"
#include "connections/tries.h"
#include "core/timezone.h"
#include "notify/announcements.h"
#include "notify/notification.h"
#include "notify/outbox.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/signed_in_pair.h"
#include "tests/support/web_server.h"

namespace peto::web {
namespace {

using nlohmann::json;
using peto::testing::SignedInClient;

constexpr const char* kSecret = "s3cret-that-is-long-enough";

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A loopback webhook receiver: records what reaches POST /hook and answers
// 204; POST /gone answers 404.
class Receiver {
 public:
  Receiver() {
    router_.add("POST", "/hook", [this](Request& r) {
      std::lock_guard<std::mutex> lock(mutex_);
      bodies_.push_back(r.body);
      signatures_.push_back(r.header("Peto-Signature") ? *r.header("Peto-Signature") : "");
      Response out;
      out.status = 204;
      return out;
    });
    router_.add("POST", "/gone", [](Request&) { return Response::json(404, {{"gone", true}}); });
    server_ = std::make_unique<peto::testing::WebServer>(router_);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(server_->port()) + path;
  }
  std::vector<std::string> bodies() {
    std::lock_guard<std::mutex> lock(mutex_);
    return bodies_;
  }
  std::vector<std::string> signatures() {
    std::lock_guard<std::mutex> lock(mutex_);
    return signatures_;
  }

 private:
  Router router_;
  std::mutex mutex_;
  std::vector<std::string> bodies_, signatures_;
  std::unique_ptr<peto::testing::WebServer> server_;
};

class ConnectionsHttpTest : public peto::testing::SignedInPairTest {
 protected:
  connections::Connections connections() { return connections::Connections(db(), clock_, config_); }

  // A webhook connection of `owner` made directly (not through the page).
  std::int64_t webhook(std::int64_t owner, const std::string& url = "https://hooks.example/peto",
                       const std::string& label = "Board") {
    auto made = connections().create(owner, "webhook", label, {{"url", url}, {"secret", kSecret}});
    if (auto* errors = std::get_if<notify::ConfigErrors>(&made)) {
      ADD_FAILURE() << "could not make a webhook: " << json(*errors).dump();
      return 0;
    }
    return std::get<connections::Connection>(made).id;
  }

  std::string secret_of(std::int64_t id) {
    auto conn = db().acquire();
    auto full = connections().full_config(*conn, id);
    return full ? full->value("secret", "") : "";
  }

  // Every stored column of every connection, as text: equal means unchanged.
  std::string snapshot() {
    std::string out;
    for (const auto& row : db().query("SELECT id, owner_id, label, config, enabled, last_ok_at, "
                                      "last_error, updated_at"
                                      " FROM connections ORDER BY id")) {
      for (std::size_t i = 0; i < row.size(); ++i) out += row[i].as_text() + "|";
      out += "\n";
    }
    return out;
  }

  std::string path(std::int64_t id, const std::string& rest = "") {
    return "/profile/connections/" + std::to_string(id) + rest;
  }
};

TEST_P(ConnectionsHttpTest, AWebhookAddedThroughTheFormKeepsItsSecretSealed) {
  auto empty = ana_->get("/profile/connections");
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_TRUE(contains(empty.body, "You have no connections yet."));
  EXPECT_TRUE(contains(empty.body, "href=\"/profile/connections/new?plugin=webhook\""));
  EXPECT_TRUE(contains(ana_->get("/profile").body, "href=\"/profile/connections\""));

  auto form = ana_->get("/profile/connections/new?plugin=webhook");
  ASSERT_EQ(form.status, 200) << form.body;
  EXPECT_TRUE(contains(form.body, "name=\"config_url\" type=\"url\""));
  EXPECT_TRUE(contains(form.body, "name=\"config_secret\" type=\"password\""));
  EXPECT_TRUE(contains(form.body, "<legend>What it sends</legend>"));
  // Each notifier's defaults: a webhook sends everything, e-mail by the general
  // rule (on, except news of what the person did themselves).
  EXPECT_TRUE(
      contains(form.body, "name=\"event_offer_recorded\" type=\"checkbox\" value=\"on\" checked"));
  auto email = ana_->get("/profile/connections/new?plugin=email");
  ASSERT_EQ(email.status, 200) << email.body;
  EXPECT_TRUE(
      contains(email.body, "name=\"event_reminder_due\" type=\"checkbox\" value=\"on\" checked"));
  EXPECT_TRUE(
      contains(email.body, "name=\"event_offer_recorded\" type=\"checkbox\" value=\"on\">"));

  auto made = ana_->post_form("/profile/connections/new?plugin=webhook",
                              {{"label", "Team board"},
                               {"config_url", "https://hooks.example/peto"},
                               {"config_secret", kSecret},
                               {"event_reminder_due", "on"},
                               {"event_offer_recorded", "on"}});
  ASSERT_EQ(made.status, 303) << made.body;
  EXPECT_EQ(made.header("Location"), "/profile/connections?done=added");
  ASSERT_EQ(count("connections"), 1);

  auto stored = db().query("SELECT id, config, secrets_encrypted FROM connections");
  const std::int64_t id = stored[0].int_at(0);
  EXPECT_FALSE(contains(stored[0].text(1), kSecret));
  EXPECT_FALSE(stored[0].text(2).empty());
  EXPECT_FALSE(contains(stored[0].text(2), kSecret)) << "the secret is sealed at rest";
  EXPECT_EQ(secret_of(id), kSecret);

  auto c = connections().get(ana_->account().id, id);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->label, "Team board");
  EXPECT_EQ(c->secrets_set, std::vector<std::string>{"secret"});
  EXPECT_EQ(c->config.value("event_reminder_due", false), true);
  EXPECT_EQ(c->config.value("event_went_quiet", true), false) << "unticked means off";
  EXPECT_EQ(c->config.value("event_offer_recorded", false), true);

  auto list = ana_->get("/profile/connections?done=added");
  ASSERT_EQ(list.status, 200);
  EXPECT_TRUE(contains(list.body, "Team board"));
  EXPECT_TRUE(contains(list.body, "Connection added."));
  auto edit = ana_->get(path(id));
  ASSERT_EQ(edit.status, 200) << edit.body;
  EXPECT_TRUE(contains(edit.body, "Leave this blank to keep it"));
  EXPECT_TRUE(contains(edit.body, "value=\"https://hooks.example/peto\""));
  EXPECT_TRUE(
      contains(edit.body, "name=\"event_offer_recorded\" type=\"checkbox\" value=\"on\" checked"));
  for (const auto* page : {&made, &list, &edit})
    EXPECT_FALSE(contains(page->body, kSecret)) << "the secret is never shown back";
}

TEST_P(ConnectionsHttpTest, ABlankSecretOnEditKeepsTheStoredOne) {
  std::int64_t id = webhook(ana_->account().id);
  auto saved = ana_->post_form(path(id), {{"label", "Renamed"},
                                          {"config_url", "https://hooks.example/peto"},
                                          {"config_secret", ""},
                                          {"event_reminder_due", "on"}});
  ASSERT_EQ(saved.status, 303) << saved.body;
  auto c = connections().get(ana_->account().id, id);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->label, "Renamed");
  EXPECT_FALSE(c->enabled) << "the enabled box was not ticked";
  EXPECT_EQ(secret_of(id), kSecret);

  // A new secret replaces it; ticking "On" switches it back on.
  const std::string other = "another-secret-long-enough";
  ASSERT_EQ(ana_->post_form(path(id), {{"label", "Renamed"},
                                       {"config_url", "https://hooks.example/peto"},
                                       {"config_secret", other},
                                       {"enabled", "on"}})
                .status,
            303);
  EXPECT_EQ(secret_of(id), other);
  EXPECT_TRUE(connections().get(ana_->account().id, id)->enabled);
}

// A secret is bound to the address it was entered for: pointing the
// connection somewhere else (a form, or a token with connections:write)
// cannot send the stored secret there. The form asks for it again.
TEST_P(ConnectionsHttpTest, AChangedAddressAsksForTheSecretAgain) {
  std::int64_t id = webhook(ana_->account().id);
  const std::string before = snapshot();
  auto moved = ana_->post_form(path(id), {{"label", "Board"},
                                          {"config_url", "https://elsewhere.example/collect"},
                                          {"config_secret", ""},
                                          {"enabled", "on"}});
  ASSERT_EQ(moved.status, 422) << moved.body;
  EXPECT_TRUE(contains(moved.body, "The address changed: enter this again for the new address."))
      << moved.body;
  EXPECT_EQ(snapshot(), before) << "nothing written";
  EXPECT_EQ(secret_of(id), kSecret);

  const std::string fresh = "a-secret-for-the-new-address";
  auto saved = ana_->post_form(path(id), {{"label", "Board"},
                                          {"config_url", "https://elsewhere.example/collect"},
                                          {"config_secret", fresh},
                                          {"enabled", "on"}});
  ASSERT_EQ(saved.status, 303) << saved.body;
  EXPECT_EQ(secret_of(id), fresh);
  EXPECT_EQ(connections().get(ana_->account().id, id)->config.value("url", ""),
            "https://elsewhere.example/collect");
}

TEST_P(ConnectionsHttpTest, BadInputIs422WithTheFieldErrorAndWritesNothing) {
  const std::string typed = "typed-secret-long-enough-1";
  auto bad_url = ana_->post_form(
      "/profile/connections/new?plugin=webhook",
      {{"label", "Board"}, {"config_url", "not an address"}, {"config_secret", typed}});
  ASSERT_EQ(bad_url.status, 422) << bad_url.body;
  EXPECT_TRUE(contains(bad_url.body, "id=\"config-url-error\"")) << bad_url.body;
  EXPECT_TRUE(contains(bad_url.body, "aria-invalid=\"true\""));
  EXPECT_TRUE(contains(bad_url.body, "value=\"not an address\"")) << "the form as typed";
  EXPECT_FALSE(contains(bad_url.body, typed)) << "a typed secret is not sent back";

  auto short_secret = ana_->post_form(
      "/profile/connections/new?plugin=webhook",
      {{"label", "Board"}, {"config_url", "https://hooks.example/x"}, {"config_secret", "short"}});
  ASSERT_EQ(short_secret.status, 422) << short_secret.body;
  EXPECT_TRUE(contains(short_secret.body, "id=\"config-secret-error\"")) << short_secret.body;

  auto unknown = ana_->post_form("/profile/connections/new?plugin=carrier-pigeon",
                                 {{"label", "Coo"}, {"config_url", "https://x.example"}});
  EXPECT_EQ(unknown.status, 422) << unknown.body;
  EXPECT_TRUE(contains(unknown.body, "Choose a kind of connection"));
  EXPECT_EQ(ana_->get("/profile/connections/new?plugin=carrier-pigeon").status, 404);
  EXPECT_EQ(count("connections"), 0);

  // On edit too: the stored connection stays as it was.
  std::int64_t id = webhook(ana_->account().id);
  std::string before = snapshot();
  auto bad_edit =
      ana_->post_form(path(id), {{"label", "Board"}, {"config_url", "ftp://x.example"}});
  ASSERT_EQ(bad_edit.status, 422) << bad_edit.body;
  EXPECT_TRUE(contains(bad_edit.body, "id=\"config-url-error\""));
  EXPECT_EQ(snapshot(), before);
  EXPECT_EQ(secret_of(id), kSecret);
}

TEST_P(ConnectionsHttpTest, AnotherAccountsConnectionIsTheNotFoundPage) {
  std::int64_t bens = webhook(ben_->account().id, "https://hooks.example/ben", "Ben's");
  std::string before = snapshot();
  EXPECT_EQ(ana_->get(path(bens)).status, 404);
  EXPECT_EQ(
      ana_->post_form(path(bens), {{"label", "Mine now"}, {"config_url", "https://evil.example"}})
          .status,
      404);
  EXPECT_EQ(ana_->post_form(path(bens, "/test"), {}).status, 404);
  EXPECT_EQ(ana_->post_form(path(bens, "/delete"), {}).status, 404);
  EXPECT_EQ(ana_->get("/profile/connections/nope").status, 404);
  EXPECT_EQ(snapshot(), before);
  EXPECT_FALSE(contains(ana_->get("/profile/connections").body, "Ben&#39;s"));
  EXPECT_FALSE(contains(ana_->get("/profile/connections").body, "hooks.example/ben"));
}

// A notice given up (one run of `peto schedule` refused a private address,
// say) can be sent again from its connection's page.
TEST_P(ConnectionsHttpTest, GivenUpNoticesCanBeSentAgain) {
  std::int64_t id = webhook(ana_->account().id);
  notify::Notification n;
  n.event = "reminder_due";
  n.title = "Call Zoe back";
  n.key = "reminder:1";
  db().query(
      "INSERT INTO deliveries (owner_id, connection_id, event, key, body, status, attempts,"
      " last_attempt_at, last_error, created_at) VALUES (?, ?, ?, ?, ?, 'given_up', 8, ?, ?, ?)",
      {ana_->account().id, id, n.event, n.key, notify::payload(n), clock_.now_ms(),
       "the destination is a private address", clock_.now_ms()});
  auto page = ana_->get(path(id));
  ASSERT_EQ(page.status, 200);
  EXPECT_TRUE(contains(page.body, "data-testid=\"given-up\"")) << page.body;
  EXPECT_TRUE(contains(page.body, "Call Zoe back"));
  EXPECT_TRUE(contains(page.body, "the destination is a private address"));

  EXPECT_EQ(ben_->post_form(path(id, "/send-again"), {}).status, 404);
  auto again = ana_->post_form(path(id, "/send-again"), {});
  ASSERT_EQ(again.status, 303);
  EXPECT_EQ(again.header("Location"), path(id));
  auto row = db().query("SELECT status, attempts, next_attempt_at FROM deliveries")[0];
  EXPECT_EQ(row.text("status"), "pending");
  EXPECT_EQ(row.int_at("attempts"), 0);
  EXPECT_EQ(row.int_at("next_attempt_at"), clock_.now_ms());
  EXPECT_FALSE(contains(ana_->get(path(id)).body, "data-testid=\"given-up\""));
}

TEST_P(ConnectionsHttpTest, DeleteRemovesTheConnection) {
  std::int64_t id = webhook(ana_->account().id);
  auto gone = ana_->post_form(path(id, "/delete"), {});
  ASSERT_EQ(gone.status, 303);
  EXPECT_EQ(gone.header("Location"), "/profile/connections?done=deleted");
  EXPECT_EQ(count("connections"), 0);
  EXPECT_EQ(ana_->get(path(id)).status, 404);
  // Without the CSRF token nothing happens.
  std::int64_t kept = webhook(ana_->account().id);
  EXPECT_EQ(ana_->request("POST", path(kept, "/delete"), "", {}).status, 403);
  EXPECT_EQ(count("connections"), 1);
}

TEST_P(ConnectionsHttpTest, TheTestButtonQueuesATryAndThePageShowsItsOutcome) {
  config_.allow_private_destinations = true;  // the receiver is on 127.0.0.1
  Receiver receiver;
  std::int64_t id = webhook(ana_->account().id, receiver.url("/hook"));
  auto asked = ana_->post_form(path(id, "/test"), {});
  ASSERT_EQ(asked.status, 303) << asked.body;
  const std::string page = asked.header("Location");
  ASSERT_TRUE(page.starts_with(path(id) + "?try=")) << page;
  // Asked twice before the worker came: the same errand.
  EXPECT_EQ(ana_->post_form(path(id, "/test"), {}).header("Location"), page);
  EXPECT_EQ(count("tasks"), 1);

  // Nothing is sent in the request; the page says so and reloads itself.
  auto waiting = ana_->get(page);
  ASSERT_EQ(waiting.status, 200);
  EXPECT_TRUE(contains(waiting.body, "Sending a test notice")) << waiting.body;
  EXPECT_EQ(waiting.header("Refresh"), "2");
  EXPECT_TRUE(receiver.bodies().empty());
  // Somebody else sees nothing of it, even on a page of their own.
  std::int64_t bens = webhook(ben_->account().id);
  auto other = ben_->get(path(bens) + page.substr(page.find('?')));
  EXPECT_FALSE(contains(other.body, "Sending a test notice")) << other.body;
  EXPECT_EQ(other.header("Refresh"), "");

  EXPECT_EQ(run_tries(), 1);
  auto tested = ana_->get(page);
  ASSERT_EQ(tested.status, 200) << tested.body;
  EXPECT_TRUE(contains(tested.body, "Sent. Check that it arrived.")) << tested.body;
  EXPECT_EQ(tested.header("Refresh"), "");
  ASSERT_EQ(receiver.bodies().size(), 1u);
  EXPECT_TRUE(contains(receiver.bodies()[0], "\"version\":1"));
  EXPECT_TRUE(receiver.signatures()[0].starts_with("t=")) << "a signed webhook";
  auto c = connections().get(ana_->account().id, id);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->last_ok_at.has_value());
  EXPECT_EQ(c->last_error, "");

  // A receiver that answers 404: the page says so and the connection keeps it.
  std::int64_t gone = webhook(ana_->account().id, receiver.url("/gone"), "Gone");
  auto failed_at = ana_->post_form(path(gone, "/test"), {}).header("Location");
  EXPECT_EQ(run_tries(), 1);
  auto failed = ana_->get(failed_at);
  ASSERT_EQ(failed.status, 200) << failed.body;
  EXPECT_TRUE(contains(failed.body, "flash--error")) << failed.body;
  EXPECT_TRUE(contains(failed.body, "404")) << failed.body;
  c = connections().get(ana_->account().id, gone);
  EXPECT_FALSE(c->last_ok_at.has_value());
  EXPECT_FALSE(c->last_error.empty());
  EXPECT_TRUE(contains(ana_->get("/profile/connections").body, c->last_error));
}

TEST_P(ConnectionsHttpTest, APersonHasAFewTriesWaitingAtMost) {
  std::vector<std::int64_t> ids;
  for (int i = 0; i < connections::Tries::kUnfinishedPerPerson + 1; ++i)
    ids.push_back(webhook(ana_->account().id));
  for (int i = 0; i < connections::Tries::kUnfinishedPerPerson; ++i)
    ASSERT_EQ(ana_->post_form(path(ids[i], "/test"), {}).status, 303);
  auto refused = ana_->post_form(path(ids.back(), "/test"), {});
  EXPECT_EQ(refused.status, 429);
  EXPECT_TRUE(contains(refused.body, "still running")) << refused.body;
  EXPECT_EQ(count("tasks"), connections::Tries::kUnfinishedPerPerson);
  // Another person is not held by them.
  EXPECT_EQ(ben_->post_form(path(webhook(ben_->account().id), "/test"), {}).status, 303);
}

TEST_P(ConnectionsHttpTest, WithoutAWorkerTheTestRunsInTheRequestOnePerPersonAtATime) {
  config_.background_work = false;
  config_.allow_private_destinations = true;
  Receiver receiver;
  std::int64_t id = webhook(ana_->account().id, receiver.url("/hook"));
  auto tested = ana_->post_form(path(id, "/test"), {});
  ASSERT_EQ(tested.status, 200) << tested.body;
  EXPECT_TRUE(contains(tested.body, "Sent. Check that it arrived.")) << tested.body;
  EXPECT_EQ(receiver.bodies().size(), 1u);
  EXPECT_EQ(count("tasks"), 0);

  // While a try of Ana's runs, another of hers waits its turn; Ben's does not.
  auto running = connections::TryGate::process().enter(ana_->account().id);
  ASSERT_TRUE(running);
  auto refused = ana_->post_form(path(id, "/test"), {});
  EXPECT_EQ(refused.status, 429);
  EXPECT_TRUE(contains(refused.body, "still running")) << refused.body;
  EXPECT_EQ(receiver.bodies().size(), 1u);
  std::int64_t bens = webhook(ben_->account().id, receiver.url("/hook"));
  EXPECT_EQ(ben_->post_form(path(bens, "/test"), {}).status, 200);
  EXPECT_EQ(receiver.bodies().size(), 2u);
  // The gate holds kAtOnce tries in all.
  auto second = connections::TryGate::process().enter(ben_->account().id);
  ASSERT_TRUE(second);
  EXPECT_FALSE(connections::TryGate::process().enter(ben_->account().id + 100));
}

PETO_BOTH_BACKENDS(ConnectionsHttpTest);

class InboxHttpTest : public ConnectionsHttpTest {
 protected:
  void announce(const std::string& title, const std::string& key) {
    notify::Outbox outbox(clock_, config_);
    notify::Recipient to{ana_->account().id, "ana@example.com", "en", "UTC", true};
    notify::Notification n;
    n.event = "reminder_due";
    n.title = title;
    n.body = "Body of " + title;
    n.url = "/reminders";
    n.key = key;
    auto conn = db().acquire();
    outbox.announce(*conn, to, n, {});
    clock_.advance(std::chrono::minutes(1));
  }
};

TEST_P(InboxHttpTest, TheBellCountsUnreadNoticesUntilTheyAreMarkedRead) {
  auto quiet = ana_->get("/profile");
  ASSERT_EQ(quiet.status, 200);
  EXPECT_TRUE(contains(quiet.body, "href=\"/inbox\""));
  EXPECT_TRUE(contains(quiet.body, "Inbox, no unread notices"));
  EXPECT_TRUE(contains(ana_->get("/inbox").body, "No notices."));

  announce("Call Ada back", "reminder:1");
  announce("Send the portfolio", "reminder:2");
  announce("Prepare questions", "reminder:3");
  auto page = ana_->get("/profile");
  EXPECT_TRUE(contains(page.body, "Inbox, 3 unread notices")) << page.body;
  EXPECT_TRUE(contains(page.body, "<span class=\"badge\" aria-hidden=\"true\">3</span>"));
  EXPECT_TRUE(contains(ben_->get("/profile").body, "Inbox, no unread notices"))
      << "one person's notices are not another's";

  auto inbox = ana_->get("/inbox");
  ASSERT_EQ(inbox.status, 200) << inbox.body;
  auto newest = inbox.body.find("Prepare questions");
  auto oldest = inbox.body.find("Call Ada back");
  ASSERT_NE(newest, std::string::npos);
  ASSERT_NE(oldest, std::string::npos);
  EXPECT_LT(newest, oldest) << "newest first";
  EXPECT_TRUE(contains(inbox.body, "Body of Send the portfolio"));
  EXPECT_TRUE(contains(inbox.body, "aria-current=\"page\""));
  EXPECT_TRUE(contains(inbox.body, "Inbox, 3 unread notices")) << "looking marks nothing";
  auto unread = [&] { return notify::Outbox::unread(*db().acquire(), ana_->account().id); };
  EXPECT_EQ(unread(), 3);

  // "Mark all as read" marks what the page showed: a notice that came since
  // stays new. Without the CSRF token nothing happens.
  std::smatch upto;
  ASSERT_TRUE(std::regex_search(inbox.body, upto, std::regex("name=\"upto\" value=\"(\\d+)\"")))
      << inbox.body;
  announce("One more", "reminder:4");
  EXPECT_EQ(ana_->request("POST", "/inbox/read", "upto=" + upto[1].str(),
                          {{"Content-Type", "application/x-www-form-urlencoded"}})
                .status,
            403);
  EXPECT_EQ(unread(), 4);
  auto marked = ana_->post_form("/inbox/read", {{"upto", upto[1].str()}});
  ASSERT_EQ(marked.status, 303);
  EXPECT_EQ(marked.header("Location"), "/inbox?done=read");
  EXPECT_EQ(unread(), 1);
  auto after = ana_->get("/inbox?done=read");
  EXPECT_TRUE(contains(after.body, "Your notices are marked read.")) << after.body;
  EXPECT_TRUE(contains(after.body, "Inbox, 1 unread notice<")) << after.body;
  EXPECT_EQ(ben_->post_form("/inbox/read", {}).status, 303);
  EXPECT_EQ(unread(), 1) << "Ben marks only his own";
  EXPECT_EQ(ana_->post_form("/inbox/read", {}).status, 303);
  EXPECT_EQ(unread(), 0);
  EXPECT_FALSE(contains(ana_->get("/inbox").body, "Mark all as read"));
}

// A due reminder's notice offers Done and Snooze, as the dashboard does,
// and both come back to the inbox; once the reminder is done, or for
// another person's reminder, the notice is only a notice.
TEST_P(InboxHttpTest, ADueRemindersNoticeSnoozesIt) {
  const std::string due = format_local(clock_.now_ms() - 3600 * 1000, "UTC", "%Y-%m-%dT%H:%M");
  ASSERT_EQ(ana_->post_form("/reminders", {{"title", "Call Ada back"}, {"due_at", due}}).status,
            303);
  const auto id = db().query("SELECT id FROM reminders")[0].int_at(0);
  announce("Call Ada back", "reminder:" + std::to_string(id) + ":2027-01-15T07:00:00Z");
  announce("Someone else's", "reminder:" + std::to_string(id + 1000) + ":2027-01-15T07:00:00Z");

  auto inbox = ana_->get("/inbox");
  const std::string snooze = "action=\"/reminders/" + std::to_string(id) + "/snooze\"";
  EXPECT_TRUE(contains(inbox.body, snooze)) << inbox.body;
  EXPECT_TRUE(contains(inbox.body, "action=\"/reminders/" + std::to_string(id) + "/done\""));
  EXPECT_FALSE(contains(inbox.body, "/reminders/" + std::to_string(id + 1000) + "/snooze"));

  auto snoozed = ana_->post_form("/reminders/" + std::to_string(id) + "/snooze",
                                 {{"until", "tomorrow"}, {"return_to", "/inbox"}});
  ASSERT_EQ(snoozed.status, 303);
  EXPECT_EQ(snoozed.header("Location"), "/inbox");
  EXPECT_EQ(db().query("SELECT due_at FROM reminders")[0].int_at(0),
            parse_local("2027-01-16 09:00", "UTC").value());

  ASSERT_EQ(ana_->post_form("/reminders/" + std::to_string(id) + "/done",
                            {{"done", "1"}, {"return_to", "/inbox"}})
                .header("Location"),
            "/inbox");
  EXPECT_FALSE(contains(ana_->get("/inbox").body, snooze)) << "a reminder done is not snoozed";
  EXPECT_EQ(notify::reminder_of_key("reminder:x1:2027"), 0);
  EXPECT_EQ(notify::reminder_of_key("went_quiet:12:2027"), 0);
}

PETO_BOTH_BACKENDS(InboxHttpTest);

}  // namespace
}  // namespace peto::web
