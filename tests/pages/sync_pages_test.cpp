// Sync connections on /profile/connections over real HTTP: the add menu
// offers CalDAV and CardDAV; one added through the form is a connection of
// kind "sync" with its interval; a bad address is 422 with nothing written;
// "Sync now" runs it at once and shows the report, says "already running"
// while its lease is held, and is the 404 page for anybody else.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/gate.h"
#include "store/cache.h"
#include "tests/support/dav_server.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

using peto::testing::DavServer;
using peto::testing::SignedInClient;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class SyncPagesTest : public peto::testing::SignedInPairTest {
 protected:
  void SetUp() override {
    config_.allow_private_destinations = true;  // the DAV server is on 127.0.0.1
    SignedInPairTest::SetUp();
  }
};

TEST_P(SyncPagesTest, AnAddressBookIsAddedAndSyncedFromItsPage) {
  DavServer dav;
  dav.expect_basic("ana", "app-password");
  dav.put_member("/dav/book/carl.vcf",
                 "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:carl\r\nFN:Carl Berg\r\nEND:VCARD\r\n");

  auto list = ana_->get("/profile/connections");
  ASSERT_EQ(list.status, 200);
  EXPECT_TRUE(contains(list.body, "href=\"/profile/connections/new?plugin=caldav\""));
  EXPECT_TRUE(contains(list.body, "href=\"/profile/connections/new?plugin=carddav\""));
  auto form = ana_->get("/profile/connections/new?plugin=carddav");
  ASSERT_EQ(form.status, 200);
  EXPECT_TRUE(contains(form.body, "name=\"config_interval\""));

  auto refused = ana_->post_form("/profile/connections/new?plugin=carddav",
                                 {{"label", "Contacts"},
                                  {"config_url", "ftp://dav.example/book/"},
                                  {"config_interval", "60"}});
  EXPECT_EQ(refused.status, 422);
  auto bad_interval = ana_->post_form(
      "/profile/connections/new?plugin=carddav",
      {{"label", "Contacts"}, {"config_url", dav.url("/dav/book/")}, {"config_interval", "7"}});
  EXPECT_EQ(bad_interval.status, 422);
  EXPECT_EQ(count("connections"), 0);

  auto made = ana_->post_form("/profile/connections/new?plugin=carddav",
                              {{"label", "Contacts"},
                               {"config_url", dav.url("/dav/book/")},
                               {"config_username", "ana"},
                               {"config_password", "app-password"},
                               {"config_interval", "15"}});
  ASSERT_EQ(made.status, 303) << made.body;
  auto row = db().query("SELECT id, kind, plugin, config FROM connections")[0];
  EXPECT_EQ(row.text(1), "sync");
  EXPECT_EQ(row.text(2), "carddav");
  EXPECT_TRUE(contains(row.text(3), "\"interval\":\"15\"")) << row.text(3);
  const std::string page = "/profile/connections/" + std::to_string(row.int_at(0));

  // Somebody else's: the 404 page, and nothing ran.
  EXPECT_EQ(ben_->post_form(page + "/sync", {}).status, 404);
  EXPECT_EQ(dav.count("PROPFIND"), 0u);

  auto asked = ana_->post_form(page + "/sync", {});
  ASSERT_EQ(asked.status, 303) << asked.body;
  auto syncing = ana_->get(asked.header("Location"));
  EXPECT_TRUE(contains(syncing.body, "Syncing…")) << syncing.body;
  EXPECT_EQ(syncing.header("Refresh"), "2");
  EXPECT_EQ(dav.count("PROPFIND"), 0u) << "nothing runs in the request";
  EXPECT_EQ(run_tries(), 1);
  auto synced = ana_->get(asked.header("Location"));
  ASSERT_EQ(synced.status, 200) << synced.body;
  EXPECT_TRUE(contains(synced.body, "Synced.")) << synced.body;
  EXPECT_TRUE(contains(synced.body, "1 added here")) << synced.body;
  EXPECT_EQ(db().query("SELECT name FROM contacts")[0].text(0), "Carl Berg");
  EXPECT_TRUE(contains(ana_->get(page).body, "1 added here")) << "the last report is kept";

  // While a run holds the connection's lease, "Sync now" starts nothing.
  store::Cache cache(db(), clock_);
  auto held = engine::KeyLease::take(cache, "sync:" + std::to_string(row.int_at(0)),
                                     std::chrono::minutes(15));
  ASSERT_TRUE(held);
  const auto requests = dav.count("PROPFIND") + dav.count("REPORT");
  auto again = ana_->post_form(page + "/sync", {});
  ASSERT_EQ(again.status, 303);
  EXPECT_EQ(run_tries(), 1);
  auto busy = ana_->get(again.header("Location"));
  ASSERT_EQ(busy.status, 200);
  EXPECT_TRUE(contains(busy.body, "syncing already")) << busy.body;
  EXPECT_EQ(dav.count("PROPFIND") + dav.count("REPORT"), requests);
}

PETO_BOTH_BACKENDS(SyncPagesTest);

}  // namespace
}  // namespace peto::web
