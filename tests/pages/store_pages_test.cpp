// Store connections on /profile/connections and "Send now" on a document's
// copy, over real HTTP: the add menu offers the stores; a local folder added
// through the form is a connection of kind "store" without event switches; a
// folder leading out of the root is 422 with nothing written; the test button
// copies peto-test.txt; "Send now" copies the document at once, and is the
// 404 page for anybody else's copy.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "connections/connections.h"
#include "media/sigv4.h"
#include "tests/support/factory.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

namespace fs = std::filesystem;
using peto::testing::SignedInClient;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class StorePagesTest : public peto::testing::SignedInPairTest {
 protected:
  // ana's own folder of the local store root: where her local stores write.
  fs::path root() const {
    return fs::path(config_.local_store_root()) / std::to_string(ana_->account().id);
  }

  // A document of ana's, uploaded through the Documents service, which plans
  // its copies.
  std::int64_t document(const std::string& bytes) {
    return peto::testing::Factory(db(), clock_)
        .document(config_, ana_->account().id, bytes, {.filename = "cv.pdf", .title = "CV"});
  }
};

TEST_P(StorePagesTest, ALocalFolderIsAddedAsAStoreAndItsTestWritesAFile) {
  auto list = ana_->get("/profile/connections");
  ASSERT_EQ(list.status, 200);
  EXPECT_TRUE(contains(list.body, "href=\"/profile/connections/new?plugin=local\""));
  EXPECT_TRUE(contains(list.body, "href=\"/profile/connections/new?plugin=webdav\""));
  EXPECT_TRUE(contains(list.body, "href=\"/profile/connections/new?plugin=s3\""));

  auto form = ana_->get("/profile/connections/new?plugin=local");
  ASSERT_EQ(form.status, 200) << form.body;
  EXPECT_TRUE(contains(form.body, "name=\"config_folder\""));
  EXPECT_FALSE(contains(form.body, "<legend>What it sends</legend>")) << "no event switches";

  // Out of the root: 422, nothing written.
  auto refused = ana_->post_form("/profile/connections/new?plugin=local",
                                 {{"label", "Escape"}, {"config_folder", "../../etc"}});
  EXPECT_EQ(refused.status, 422);
  EXPECT_EQ(count("connections"), 0);

  auto made = ana_->post_form("/profile/connections/new?plugin=local",
                              {{"label", "Archive"}, {"config_folder", "ana"}});
  ASSERT_EQ(made.status, 303) << made.body;
  auto row = db().query("SELECT id, kind, plugin, config FROM connections")[0];
  EXPECT_EQ(row.text(1), "store");
  EXPECT_EQ(row.text(2), "local");
  EXPECT_FALSE(contains(row.text(3), "event_"));

  auto asked =
      ana_->post_form("/profile/connections/" + std::to_string(row.int_at(0)) + "/test", {});
  ASSERT_EQ(asked.status, 303) << asked.body;
  EXPECT_TRUE(contains(ana_->get(asked.header("Location")).body, "Sending peto-test.txt"));
  EXPECT_EQ(run_tries(), 1);
  auto tested = ana_->get(asked.header("Location"));
  ASSERT_EQ(tested.status, 200) << tested.body;
  EXPECT_TRUE(contains(tested.body, "peto-test.txt arrived")) << tested.body;
  EXPECT_TRUE(fs::exists(root() / "ana" / "peto-test.txt"));
}

// A store added after some documents offers to copy them, once: the
// button plans a copy of each (every version) and the offer goes away; Ben
// cannot press Ana's.
TEST_P(StorePagesTest, AStoreAddedLaterOffersToCopyTheDocumentsBeforeIt) {
  document("%PDF one");
  document("%PDF two");
  auto made = connections::Connections(db(), clock_, config_)
                  .create(ana_->account().id, "local", "Archive", {{"folder", "ana"}});
  ASSERT_TRUE(std::holds_alternative<connections::Connection>(made));
  const std::string at =
      "/profile/connections/" + std::to_string(std::get<connections::Connection>(made).id);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM document_copies")[0].int_at(0), 0);

  auto form = ana_->get(at);
  ASSERT_EQ(form.status, 200);
  EXPECT_TRUE(contains(form.body, "2 documents were here before this store was added"))
      << form.body;
  EXPECT_TRUE(contains(form.body, "action=\"" + at + "/copy-existing\""));

  EXPECT_EQ(ben_->post_form(at + "/copy-existing", {}).status, 404);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM document_copies")[0].int_at(0), 0);

  auto copied = ana_->post_form(at + "/copy-existing", {});
  ASSERT_EQ(copied.status, 303) << copied.body;
  EXPECT_EQ(copied.header("Location"), at);
  const std::string flash = peto::testing::cookie_of(copied, "peto_flash");
  auto after = ana_->request("GET", at, "", {{"Cookie", "peto_flash=" + flash}});
  EXPECT_TRUE(contains(after.body, "2 documents will be copied to this store at the next pass."))
      << after.body;
  EXPECT_FALSE(contains(after.body, "data-testid=\"uncopied\""));
  EXPECT_EQ(
      db().query("SELECT COUNT(*) FROM document_copies WHERE status = 'pending'")[0].int_at(0), 2);
  // A document added now is copied as usual; the offer stays away.
  document("%PDF three");
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM document_copies")[0].int_at(0), 3);
  EXPECT_FALSE(contains(ana_->get(at).body, "data-testid=\"uncopied\""));
}

TEST_P(StorePagesTest, SendNowCopiesTheDocumentAtOnceForItsOwnerOnly) {
  auto made = connections::Connections(db(), clock_, config_)
                  .create(ana_->account().id, "local", "Archive", {{"folder", "ana"}});
  ASSERT_TRUE(std::holds_alternative<connections::Connection>(made));
  auto doc = document("%PDF bytes");
  auto copy = db().query("SELECT id FROM document_copies")[0].int_at(0);
  const std::string action =
      "/documents/" + std::to_string(doc) + "/copies/" + std::to_string(copy) + "/send";

  EXPECT_EQ(ben_->post_form(action, {}).status, 404);
  EXPECT_EQ(ana_->post_form("/documents/" + std::to_string(doc + 1) + "/copies/" +
                                std::to_string(copy) + "/send",
                            {})
                .status,
            404);
  EXPECT_EQ(db().query("SELECT status FROM document_copies")[0].text(0), "pending");

  auto asked = ana_->post_form(action, {});
  ASSERT_EQ(asked.status, 303) << asked.body;
  const std::string page = asked.header("Location");
  ASSERT_TRUE(page.starts_with("/documents/" + std::to_string(doc) + "?try=")) << page;
  auto sending = ana_->get(page);
  EXPECT_TRUE(contains(sending.body, "Sending the copy")) << sending.body;
  EXPECT_EQ(sending.header("Refresh"), "2");
  EXPECT_EQ(db().query("SELECT status FROM document_copies")[0].text(0), "pending");
  // For Ben, Ana's document, errand and all, is the 404 page.
  EXPECT_EQ(ben_->get(page).status, 404);

  EXPECT_EQ(run_tries(), 1);
  auto sent = ana_->get(page);
  EXPECT_TRUE(contains(sent.body, "The copy was sent.")) << sent.body;
  EXPECT_EQ(sent.header("Refresh"), "");
  EXPECT_EQ(db().query("SELECT status FROM document_copies")[0].text(0), "sent");
  std::ifstream in(root() / "ana" / (std::to_string(doc) + "-cv.pdf"), std::ios::binary);
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, "%PDF bytes");

  // Sent already: nothing to do.
  auto again = ana_->post_form(action, {}).header("Location");
  EXPECT_EQ(run_tries(), 1);
  EXPECT_TRUE(contains(ana_->get(again).body, "already sent or being sent"));

  // Without a worker the copy is tried in the request.
  config_.background_work = false;
  EXPECT_EQ(ana_->post_form(action, {}).header("Location"),
            "/documents/" + std::to_string(doc) + "?copy=busy");
  EXPECT_TRUE(contains(ana_->get("/documents/" + std::to_string(doc) + "?copy=busy").body,
                       "already sent or being sent"));
}

PETO_BOTH_BACKENDS(StorePagesTest);

}  // namespace
}  // namespace peto::web
