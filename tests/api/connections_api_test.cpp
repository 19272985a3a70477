// /api/v1/connections and /api/v1/notices on both backends: the life of a
// connection (create, read, list, change, remove), secrets accepted and never
// answered, field errors with nothing written, somebody else's connection
// 404, the scopes "connections" and "notices", and the inbox read once.
#include <gtest/gtest.h>

#include <string>

#include "connections/connections.h"
#include "connections/tries.h"
#include "notify/notification.h"
#include "notify/outbox.h"
#include "tests/support/api_fixture.h"

namespace peto::testing {
namespace {

using nlohmann::json;

constexpr const char* kSecret = "api-secret-long-enough-42";
const std::string kConnections = std::string(kApi) + "/connections";

class ConnectionsApiTest : public ApiTest {
 protected:
  void SetUp() override {
    config_.secret_key = "a-test-secret-key-of-more-than-32-characters";
    ApiTest::SetUp();
  }

  static json webhook_body(const std::string& label = "Board") {
    return {{"plugin", "webhook"},
            {"label", label},
            {"config",
             {{"url", "https://hooks.example/peto"},
              {"secret", kSecret},
              {"event_went_quiet", false}}}};
  }

  // Every connection column as text: equal means nothing was written.
  std::string connections_snapshot() {
    std::string out;
    for (const auto& row : db().query("SELECT * FROM connections ORDER BY id")) {
      for (std::size_t i = 0; i < row.size(); ++i) out += row[i].as_text() + "|";
      out += "\n";
    }
    return out;
  }

  std::string one(std::int64_t id) { return kConnections + "/" + std::to_string(id); }
};

TEST_P(ConnectionsApiTest, ALifeOfAConnectionNeverAnswersItsSecret) {
  ApiClient ana = client(ana_, {"connections:write"});
  std::vector<ApiReply> replies;

  ApiReply made = ana.post(kConnections, webhook_body());
  replies.push_back(made);
  ASSERT_EQ(made.status, 201) << made.text;
  const std::int64_t id = made.body["id"].get<std::int64_t>();
  EXPECT_EQ(made.header("Location"), one(id));
  EXPECT_EQ(made.body["kind"], "notifier");
  EXPECT_EQ(made.body["plugin"], "webhook");
  EXPECT_EQ(made.body["label"], "Board");
  EXPECT_EQ(made.body["enabled"], true);
  EXPECT_EQ(made.body["config"]["url"], "https://hooks.example/peto");
  EXPECT_EQ(made.body["config"]["event_went_quiet"], false);
  EXPECT_FALSE(made.body["config"].contains("secret"));
  EXPECT_EQ(made.body["secrets_set"], json::array({"secret"}));
  EXPECT_TRUE(made.body["last_ok_at"].is_null());
  EXPECT_EQ(made.body["created_at"], "2027-01-15T08:00:00Z");

  ApiReply got = ana.get(one(id));
  replies.push_back(got);
  ASSERT_EQ(got.status, 200) << got.text;
  EXPECT_EQ(got.body, made.body);

  ApiReply list = ana.get(kConnections);
  replies.push_back(list);
  ASSERT_EQ(list.status, 200) << list.text;
  ASSERT_EQ(list.body["items"].size(), 1u);
  EXPECT_TRUE(list.body["next_cursor"].is_null());
  EXPECT_EQ(list.body["items"][0]["id"], id);

  // A secret sent as "" keeps the stored one.
  clock_.advance(std::chrono::minutes(5));
  ApiReply changed = ana.patch(one(id), {{"label", "Renamed"},
                                         {"enabled", false},
                                         {"config", {{"secret", ""}, {"event_went_quiet", true}}}});
  replies.push_back(changed);
  ASSERT_EQ(changed.status, 200) << changed.text;
  EXPECT_EQ(changed.body["label"], "Renamed");
  EXPECT_EQ(changed.body["enabled"], false);
  EXPECT_EQ(changed.body["config"]["event_went_quiet"], true);
  EXPECT_EQ(changed.body["secrets_set"], json::array({"secret"}));
  EXPECT_EQ(changed.body["updated_at"], "2027-01-15T08:05:00Z");
  {
    auto conn = db().acquire();
    connections::Connections connections(db(), clock_, config_);
    auto full = connections.full_config(*conn, id);
    ASSERT_TRUE(full);
    EXPECT_EQ(full->value("secret", ""), kSecret);
  }
  for (const auto& row : db().query("SELECT config, secrets_encrypted FROM connections"))
    for (std::size_t i = 0; i < row.size(); ++i)
      EXPECT_EQ(row.text(i).find(kSecret), std::string::npos) << "sealed at rest";

  for (const ApiReply& r : replies)
    EXPECT_EQ(r.text.find(kSecret), std::string::npos) << "a secret in an answer: " << r.text;

  ApiReply gone = ana.del(one(id));
  EXPECT_EQ(gone.status, 204) << gone.text;
  EXPECT_TRUE(is_problem(ana.get(one(id)), 404));
  EXPECT_EQ(count("connections"), 0);
}

TEST_P(ConnectionsApiTest, BadInputIs422NamingTheFieldAndWritesNothing) {
  ApiClient ana = client(ana_, {"connections:write"});
  EXPECT_TRUE(names_field(ana.post(kConnections, {{"label", "No plugin"}}), "plugin"));
  json unknown = webhook_body();
  unknown["plugin"] = "carrier-pigeon";
  EXPECT_TRUE(names_field(ana.post(kConnections, unknown), "plugin"));
  json bad_url = webhook_body();
  bad_url["config"]["url"] = "not an address";
  EXPECT_TRUE(names_field(ana.post(kConnections, bad_url), "config.url"));
  json short_secret = webhook_body();
  short_secret["config"]["secret"] = "tiny-q7z";
  ApiReply refused = ana.post(kConnections, short_secret);
  EXPECT_TRUE(names_field(refused, "config.secret"));
  EXPECT_EQ(refused.text.find("tiny-q7z"), std::string::npos) << "the secret is not echoed";
  json extra = webhook_body();
  extra["colour"] = "blue";
  EXPECT_TRUE(names_field(ana.post(kConnections, extra), "colour"));
  json not_object = webhook_body();
  not_object["config"] = "url=https://x.example";
  EXPECT_TRUE(names_field(ana.post(kConnections, not_object), "config"));
  json unknown_field = webhook_body();
  unknown_field["config"]["colour"] = "blue";
  EXPECT_TRUE(names_field(ana.post(kConnections, unknown_field), "config.colour"));
  EXPECT_EQ(count("connections"), 0);

  ApiReply made = ana.post(kConnections, webhook_body());
  ASSERT_EQ(made.status, 201) << made.text;
  const std::int64_t id = made.body["id"].get<std::int64_t>();
  std::string before = connections_snapshot();
  EXPECT_TRUE(
      names_field(ana.patch(one(id), {{"config", {{"url", "ftp://x.example"}}}}), "config.url"));
  EXPECT_TRUE(names_field(ana.patch(one(id), {{"enabled", "yes"}}), "enabled"));
  EXPECT_TRUE(names_field(ana.patch(one(id), {{"plugin", "ntfy"}}), "plugin"))
      << "the notifier of a connection does not change";
  EXPECT_EQ(connections_snapshot(), before);
}

// A token with connections:write cannot send a connection's stored secret to
// an address of its choosing: a new url drops the secret, and the webhook,
// whose secret is required, wants it again.
TEST_P(ConnectionsApiTest, ANewAddressNeedsTheSecretAgain) {
  ApiClient ana = client(ana_, {"connections:write"});
  ApiReply made = ana.post(kConnections, webhook_body());
  ASSERT_EQ(made.status, 201) << made.text;
  const std::int64_t id = made.body["id"].get<std::int64_t>();
  const std::string before = connections_snapshot();

  ApiReply moved = ana.patch(one(id), {{"config", {{"url", "https://collector.example/in"}}}});
  EXPECT_TRUE(names_field(moved, "config.secret")) << moved.text;
  EXPECT_EQ(connections_snapshot(), before) << "nothing written";

  ApiReply again = ana.patch(
      one(id),
      {{"config",
        {{"url", "https://collector.example/in"}, {"secret", "the-secret-for-the-new-place"}}}});
  ASSERT_EQ(again.status, 200) << again.text;
  EXPECT_EQ(again.body["config"]["url"], "https://collector.example/in");
  auto conn = db().acquire();
  auto full = connections::Connections(db(), clock_, config_).full_config(*conn, id);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->value("secret", ""), "the-secret-for-the-new-place");
}

// A given-up notice goes back in line through the API too.
TEST_P(ConnectionsApiTest, GivenUpNoticesCanBeSentAgain) {
  ApiClient ana = client(ana_, {"connections:write"});
  ApiReply made = ana.post(kConnections, webhook_body());
  ASSERT_EQ(made.status, 201) << made.text;
  const std::int64_t id = made.body["id"].get<std::int64_t>();
  notify::Notification n;
  n.event = "reminder_due";
  n.title = "Call Zoe back";
  n.key = "reminder:1";
  db().query(
      "INSERT INTO deliveries (owner_id, connection_id, event, key, body, status, attempts,"
      " created_at) VALUES (?, ?, ?, ?, ?, 'given_up', 8, ?)",
      {ana_, id, n.event, n.key, notify::payload(n), clock_.now_ms()});
  ApiReply again = ana.post(one(id) + "/send-again", json::object());
  ASSERT_EQ(again.status, 200) << again.text;
  EXPECT_EQ(again.body["queued"], 1);
  EXPECT_EQ(db().query("SELECT status FROM deliveries")[0].text("status"), "pending");
  EXPECT_EQ(ana.post(one(id) + "/send-again", json::object()).body["queued"], 0);
}

TEST_P(ConnectionsApiTest, AnotherAccountsConnectionIsNotFound) {
  ApiClient ben = client(ben_, {"connections:write"});
  ApiReply made = ben.post(kConnections, webhook_body("Ben's"));
  ASSERT_EQ(made.status, 201) << made.text;
  const std::int64_t id = made.body["id"].get<std::int64_t>();
  std::string before = connections_snapshot();

  ApiClient ana = client(ana_, {"connections:write"});
  EXPECT_TRUE(is_problem(ana.get(one(id)), 404));
  EXPECT_TRUE(is_problem(ana.patch(one(id), {{"label", "Mine"}}), 404));
  EXPECT_TRUE(is_problem(ana.del(one(id)), 404));
  EXPECT_TRUE(is_problem(ana.post(one(id) + "/test"), 404));
  EXPECT_TRUE(ana.get(kConnections).body["items"].empty());
  EXPECT_EQ(connections_snapshot(), before);
}

TEST_P(ConnectionsApiTest, ScopesOfOtherAreasAreRefused) {
  ApiClient listings = client(ana_, {"listings:write"});
  EXPECT_TRUE(is_problem(listings.get(kConnections), 403));
  EXPECT_TRUE(is_problem(listings.post(kConnections, webhook_body()), 403));
  EXPECT_TRUE(is_problem(listings.get(std::string(kApi) + "/notices"), 403));
  ApiClient reader = client(ana_, {"connections:read"});
  EXPECT_EQ(reader.get(kConnections).status, 200);
  EXPECT_TRUE(is_problem(reader.post(kConnections, webhook_body()), 403));
  EXPECT_EQ(count("connections"), 0);
  ApiClient everything = client(ana_, {"write"});
  EXPECT_EQ(everything.post(kConnections, webhook_body()).status, 201);
}

TEST_P(ConnectionsApiTest, TheTestSendAnswersItsOutcome) {
  ApiClient ana = client(ana_, {"connections:write"});
  json body = webhook_body();
  // localhost is refused when sending (PETO_ALLOW_PRIVATE_DESTINATIONS is off):
  // a final outcome, found without sending anything.
  body["config"]["url"] = "http://localhost:9/hook";
  ApiReply made = ana.post(kConnections, body);
  ASSERT_EQ(made.status, 201) << made.text;
  const std::int64_t id = made.body["id"].get<std::int64_t>();
  ApiReply tested = ana.post(one(id) + "/test");
  ASSERT_EQ(tested.status, 200) << tested.text;
  EXPECT_EQ(tested.body["outcome"], "final") << tested.text;
  EXPECT_FALSE(tested.body["message"].get<std::string>().empty());
  ApiReply after = ana.get(one(id));
  EXPECT_FALSE(after.body["last_error"].get<std::string>().empty()) << after.text;

  // While another try of Ana's runs, the test waits its turn: 429, nothing sent.
  auto running = connections::TryGate::process().enter(ana_);
  ASSERT_TRUE(running);
  ApiReply held = ana.post(one(id) + "/test");
  EXPECT_TRUE(is_problem(held, 429)) << held.text;
  EXPECT_EQ(held.header("Retry-After"), "5");
}

TEST_P(ConnectionsApiTest, NoticesAreTheInboxNewestFirstAndMarkedReadOnlyWhenAsked) {
  notify::Outbox outbox(clock_, config_);
  notify::Recipient to{ana_, "ana@example.com", "en", "UTC", true};
  for (const char* title : {"First", "Second"}) {
    notify::Notification n;
    n.event = "reminder_due";
    n.title = title;
    n.url = "/reminders";
    n.key = std::string("reminder:") + title;
    auto conn = db().acquire();
    outbox.announce(*conn, to, n, {});
    clock_.advance(std::chrono::minutes(1));
  }
  ApiClient ana = client(ana_, {"notices:read"});
  ApiReply inbox = ana.get(std::string(kApi) + "/notices");
  ASSERT_EQ(inbox.status, 200) << inbox.text;
  ASSERT_EQ(inbox.body["items"].size(), 2u) << inbox.text;
  EXPECT_EQ(inbox.body["items"][0]["title"], "Second");
  EXPECT_EQ(inbox.body["items"][1]["title"], "First");
  EXPECT_EQ(inbox.body["items"][0]["event"], "reminder_due");
  EXPECT_TRUE(inbox.body["next_cursor"].is_null());
  EXPECT_EQ(inbox.body["items"][0]["shown"], false);
  auto unread = [&] { return notify::Outbox::unread(*db().acquire(), ana_); };
  EXPECT_EQ(unread(), 2) << "a read changes nothing";
  ApiClient ben = client(ben_, {"notices:read", "notices:write"});
  EXPECT_TRUE(ben.get(std::string(kApi) + "/notices").body["items"].empty());

  // Marking read needs notices:write; a wrong body changes nothing.
  const std::string read = std::string(kApi) + "/notices/read";
  EXPECT_TRUE(is_problem(ana.post(read, json::object()), 403));
  ApiClient writer = client(ana_, {"notices:write"});
  EXPECT_TRUE(is_problem(writer.post(read, {{"upto", "all"}}), 422));
  EXPECT_TRUE(is_problem(writer.post(read, {{"until", 1}}), 422));
  EXPECT_EQ(ben.post(read, json::object()).body["marked"], 0) << "Ben's are Ben's";
  EXPECT_EQ(unread(), 2);
  // Up to the older one: the newer stays unread; then all.
  const auto older = inbox.body["items"][1]["id"].get<std::int64_t>();
  ApiReply marked = writer.post(read, {{"upto", older}});
  ASSERT_EQ(marked.status, 200) << marked.text;
  EXPECT_EQ(marked.body["marked"], 1);
  EXPECT_EQ(unread(), 1);
  EXPECT_EQ(writer.post(read, json::object()).body["marked"], 1);
  EXPECT_EQ(unread(), 0);
}

PETO_BOTH_BACKENDS(ConnectionsApiTest);

}  // namespace
}  // namespace peto::testing
