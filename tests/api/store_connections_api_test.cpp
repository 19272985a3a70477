// /api/v1/connections with kind "store" on both backends: a WebDAV store is
// made with its password write-only; `kind`, when given, must be the
// plugin's; a store takes no event switches; bad store fields name the field
// and write nothing; the test copies peto-test.txt to a local folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/api_fixture.h"

namespace peto::testing {
namespace {

using nlohmann::json;

const std::string kConnections = std::string(kApi) + "/connections";

class StoreConnectionsApiTest : public ApiTest {
 protected:
  void SetUp() override {
    config_.secret_key = "a-test-secret-key-of-more-than-32-characters";
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

PETO_BOTH_BACKENDS(StoreConnectionsApiTest);

}  // namespace
}  // namespace peto::testing
