// /api/v1/connections with kind "store" on both backends: a WebDAV store is
// made with its password write-only; `kind`, when given, must be the
// plugin's; a store takes no event switches; bad store fields name the field
// and write nothing; the test copies peto-test.txt to a local folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/support/api_fixture.h"
#include "tests/support/external_server.h"
#include "tests/support/factory.h"
#include "tests/support/store_servers.h"

namespace peto::testing {
namespace {

using nlohmann::json;

const std::string kConnections = std::string(kApi) + "/connections";

class StoreConnectionsApiTest : public ApiTest {
 protected:
  void SetUp() override {
    config_.secret_key = "a-test-secret-key-of-more-than-32-characters";
    config_.allow_private_destinations = true;  // the WebDAV server on loopback
    ApiTest::SetUp();
  }
  static json dav_body() {
    return {{"kind", "store"},
            {"plugin", "webdav"},
            {"label", "Cloud"},
            {"config",
             {{"url", "https://cloud.example/remote.php/dav/files/ana/"},
              {"folder", "peto"},
              {"username", "ana"},
              {"password", "app-password-1"}}}};
  }
};

TEST_P(StoreConnectionsApiTest, AStoreIsAConnectionOfKindStoreWithItsSecretWriteOnly) {
  ApiClient ana = client(ana_, {"connections:write"});
  ApiReply made = ana.post(kConnections, dav_body());
  ASSERT_EQ(made.status, 201) << made.text;
  EXPECT_EQ(made.body["kind"], "store");
  EXPECT_EQ(made.body["plugin"], "webdav");
  EXPECT_EQ(made.body["config"]["folder"], "peto");
  EXPECT_FALSE(made.body["config"].contains("password"));
  EXPECT_EQ(made.body["secrets_set"], json::array({"password"}));
  EXPECT_EQ(made.text.find("app-password-1"), std::string::npos);

  // kind left out: the plugin decides it.
  json s3 = {{"plugin", "s3"},
             {"config",
              {{"endpoint", "https://s3.eu-west-1.amazonaws.com"},
               {"region", "eu-west-1"},
               {"bucket", "ana-documents"},
               {"path_style", false},
               {"access_key_id", "AKIDANA"},
               {"secret_access_key", "very-secret"}}}};
  ApiReply bucket = ana.post(kConnections, s3);
  ASSERT_EQ(bucket.status, 201) << bucket.text;
  EXPECT_EQ(bucket.body["kind"], "store");
  EXPECT_EQ(bucket.body["config"]["prefix"], "peto/");
}

TEST_P(StoreConnectionsApiTest, BadStoreInputNamesTheFieldAndWritesNothing) {
  ApiClient ana = client(ana_, {"connections:write"});
  json wrong_kind = dav_body();
  wrong_kind["kind"] = "notifier";
  EXPECT_TRUE(names_field(ana.post(kConnections, wrong_kind), "kind"));
  json events = dav_body();
  events["config"]["event_went_quiet"] = true;
  EXPECT_TRUE(names_field(ana.post(kConnections, events), "config.event_went_quiet"));
  json bad_url = dav_body();
  bad_url["config"]["url"] = "https://ana:pw@cloud.example/";
  EXPECT_TRUE(names_field(ana.post(kConnections, bad_url), "config.url"));
  json up = dav_body();
  up["config"]["folder"] = "../up";
  EXPECT_TRUE(names_field(ana.post(kConnections, up), "config.folder"));
  json escape = {{"plugin", "local"}, {"config", {{"folder", "/etc"}}}};
  EXPECT_TRUE(names_field(ana.post(kConnections, escape), "config.folder"));
  json bucket = {{"plugin", "s3"},
                 {"config",
                  {{"endpoint", "https://s3.example"},
                   {"region", "eu-west-1"},
                   {"bucket", "No_Such Bucket"},
                   {"access_key_id", "A"},
                   {"secret_access_key", "B"}}}};
  EXPECT_TRUE(names_field(ana.post(kConnections, bucket), "config.bucket"));
  EXPECT_EQ(count("connections"), 0);
}

TEST_P(StoreConnectionsApiTest, TheTestCopiesAFileToALocalFolder) {
  ApiClient ana = client(ana_, {"connections:write"});
  ApiReply made = ana.post(kConnections, {{"plugin", "local"}, {"config", {{"folder", "ana"}}}});
  ASSERT_EQ(made.status, 201) << made.text;
  ApiReply tested =
      ana.post(kConnections + "/" + std::to_string(made.body["id"].get<std::int64_t>()) + "/test");
  ASSERT_EQ(tested.status, 200) << tested.text;
  EXPECT_EQ(tested.body["outcome"], "sent");
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(config_.local_store_root()) /
                                      std::to_string(ana_) / "ana" / "peto-test.txt"))
      << "in ana's own folder of the local store root";
}

// A test the store refuses (a wrong password) switches the connection off,
// as a copy refused the same way does: both are judged by plugin::settle.
TEST_P(StoreConnectionsApiTest, ATestTheStoreRefusesSwitchesItOffAsACopyWould) {
  StoreServer dav;
  dav.expect_authorization("Basic YWRhOnMzY3IzdA==");  // ada:s3cr3t
  ApiClient ana = client(ana_, {"connections:write", "connections:read"});
  ApiReply made = ana.post(kConnections, {{"plugin", "webdav"},
                                          {"config",
                                           {{"url", dav.url("/dav/")},
                                            {"folder", "peto"},
                                            {"username", "ada"},
                                            {"password", "wrong"}}}});
  ASSERT_EQ(made.status, 201) << made.text;
  const std::string at = kConnections + "/" + std::to_string(made.body["id"].get<std::int64_t>());
  ApiReply tested = ana.post(at + "/test");
  ASSERT_EQ(tested.status, 200) << tested.text;
  EXPECT_EQ(tested.body["outcome"], "unusable") << tested.text;
  ApiReply now = ana.get(at);
  ASSERT_EQ(now.status, 200) << now.text;
  EXPECT_EQ(now.body["enabled"], false) << now.text;
  EXPECT_NE(now.body["last_error"].get<std::string>().find("401"), std::string::npos) << now.text;
}

// A WebDAV server no one here wrote (rclone serve webdav, on loopback):
// the test lands peto-test.txt in the folder it makes, and a wrong password
// switches the connection off as a copy would.
TEST_P(StoreConnectionsApiTest, ARealWebdavServerTakesTheTestAndRefusesAWrongPassword) {
  TempDir served;
  ExternalServer dav({"/usr/bin/rclone", "serve", "webdav", served.path().string(), "--addr",
                      "127.0.0.1:{port}", "--user", "ada", "--pass", "s3cr3t"},
                     dir());
  ApiClient ana = client(ana_, {"connections:write", "connections:read"});
  auto made_with = [&](const std::string& password) {
    ApiReply made =
        ana.post(kConnections, {{"plugin", "webdav"},
                                {"config",
                                 {{"url", "http://127.0.0.1:" + std::to_string(dav.port()) + "/"},
                                  {"folder", "peto"},
                                  {"username", "ada"},
                                  {"password", password}}}});
    EXPECT_EQ(made.status, 201) << made.text;
    return kConnections + "/" + std::to_string(made.body["id"].get<std::int64_t>());
  };
  const std::string good = made_with("s3cr3t");
  ApiReply tested = ana.post(good + "/test");
  ASSERT_EQ(tested.status, 200) << tested.text;
  EXPECT_EQ(tested.body["outcome"], "sent") << tested.text << "\n" << dav.log();
  std::ifstream in(served.path() / "peto" / "peto-test.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "A test file from peto; it can be deleted.\n");

  const std::string bad = made_with("wrong");
  EXPECT_EQ(ana.post(bad + "/test").body["outcome"], "unusable");
  EXPECT_EQ(ana.get(bad).body["enabled"], false);
  EXPECT_EQ(ana.get(good).body["enabled"], true);
}

// POST …/copy-existing plans a copy of every document from before the
// store, once; a notifier connection is not a store: 404.
TEST_P(StoreConnectionsApiTest, CopyExistingPlansTheDocumentsFromBeforeTheStore) {
  Factory(db(), clock_).document(config_, ana_, "%PDF one", {.filename = "cv.pdf", .title = "CV"});
  Factory(db(), clock_).document(config_, ana_, "%PDF two", {.filename = "l.pdf", .title = "L"});
  ApiClient ana = client(ana_, {"connections:write"});
  ApiReply made = ana.post(kConnections, {{"plugin", "local"}, {"config", {{"folder", "ana"}}}});
  ASSERT_EQ(made.status, 201) << made.text;
  const std::string at = kConnections + "/" + std::to_string(made.body["id"].get<std::int64_t>());
  ApiReply first = ana.post(at + "/copy-existing");
  ASSERT_EQ(first.status, 200) << first.text;
  EXPECT_EQ(first.body["queued"], 2);
  EXPECT_EQ(ana.post(at + "/copy-existing").body["queued"], 0) << "once";
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM document_copies")[0].int_at(0), 2);
  ApiReply hook =
      ana.post(kConnections,
               {{"plugin", "webhook"},
                {"config", {{"url", "https://localhost/hook"}, {"secret", "0123456789abcdef"}}}});
  ASSERT_EQ(hook.status, 201) << hook.text;
  EXPECT_TRUE(
      is_problem(ana.post(kConnections + "/" + std::to_string(hook.body["id"].get<std::int64_t>()) +
                          "/copy-existing"),
                 404));
}

PETO_BOTH_BACKENDS(StoreConnectionsApiTest);

}  // namespace
}  // namespace peto::testing
