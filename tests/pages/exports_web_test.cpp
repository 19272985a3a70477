// /profile/export and /profile/import over real HTTP: the export errand is
// queued, shows its state while it waits, and its archive is then offered as
// an attachment to its owner only, for a day; without a worker the archive is
// written at once; the import page reads an archive back, and a refused one
// changes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "engine/queue.h"
#include "media/exports.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"

namespace peto {
namespace {

namespace fs = std::filesystem;
using testing::ClientResponse;
using testing::FormFields;
using testing::SignedInClient;

constexpr const char* kBoundary = "----petoExportBoundary7MA4YWxkTrZu0gW";

std::string multipart(const FormFields& fields, const std::string& content) {
  std::string out;
  for (const auto& [name, value] : fields)
    out += std::string("--") + kBoundary + "\r\nContent-Disposition: form-data; name=\"" + name +
           "\"\r\n\r\n" + value + "\r\n";
  out += std::string("--") + kBoundary +
         "\r\nContent-Disposition: form-data; name=\"archive\"; filename=\"peto.zip\"\r\n"
         "Content-Type: application/zip\r\n\r\n" +
         content + "\r\n";
  out += std::string("--") + kBoundary + "--\r\n";
  return out;
}

class ExportsWebTest : public testing::SiteTest {
 protected:
  ClientResponse upload(const SignedInClient& c, const std::string& content, bool force = false) {
    FormFields fields = {{"csrf", c.csrf()}};
    if (force) fields.emplace_back("force", "yes");
    return c.request("POST", "/profile/import", multipart(fields, content),
                     {{"Content-Type", std::string("multipart/form-data; boundary=") + kBoundary}});
  }
  std::string download_link(const std::string& html) {
    std::smatch m;
    if (!std::regex_search(html, m, std::regex("/profile/export/[0-9]+/download"))) return "";
    return m[0];
  }
  // Runs the waiting export errand as the worker would.
  void run_errand() {
    engine::Queue queue(db(), clock_);
    auto tasks = queue.claim("default", "test-worker", 10, std::chrono::minutes(5));
    ASSERT_EQ(tasks.size(), 1u);
    ASSERT_EQ(tasks[0].kind, media::kExportTask);
    auto done = media::run_export_task(db(), clock_, config_, tasks[0].id, tasks[0].owner);
    ASSERT_TRUE(done) << done.status().message();
    ASSERT_TRUE(queue.finish(tasks[0], "test-worker", *done));
  }
};

TEST_P(ExportsWebTest, TheErrandsArchiveIsTheOwnersForADay) {
  config_.background_work = true;
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  auto ben = SignedInClient::with_session(port(), site_->accounts(), "ben@example.com");
  app::load_demo(db(), clock_, ana.account().id);

  auto profile = ana.get("/profile");
  EXPECT_NE(profile.body.find("href=\"/profile/export\""), std::string::npos);
  auto page = ana.get("/profile/export");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(download_link(page.body), "");

  auto started = ana.post_form("/profile/export", {});
  ASSERT_EQ(started.status, 303) << started.body;
  // Asking twice while it waits makes one errand, not two.
  ana.post_form("/profile/export", {});
  EXPECT_EQ(count("tasks"), 1);
  auto waiting = ana.get("/profile/export");
  EXPECT_EQ(waiting.status, 200);
  EXPECT_EQ(waiting.header("Refresh"), "3");
  EXPECT_NE(waiting.body.find("Packing up your data"), std::string::npos);

  run_errand();
  auto ready = ana.get("/profile/export");
  EXPECT_EQ(ready.header("Refresh"), "");
  std::string link = download_link(ready.body);
  ASSERT_NE(link, "") << ready.body;

  auto file = ana.get(link);
  ASSERT_EQ(file.status, 200);
  EXPECT_EQ(file.header("Content-Type"), "application/zip");
  EXPECT_EQ(file.header("Content-Disposition").rfind("attachment; filename=\"peto-export-", 0), 0u)
      << file.header("Content-Disposition");
  EXPECT_EQ(file.body.substr(0, 2), "PK");
  EXPECT_EQ(ben.get(link).status, 404);  // somebody else's archive

  // The archive imports into ben's empty account through the page.
  auto imported = upload(ben, file.body);
  EXPECT_EQ(imported.status, 200) << imported.body;
  EXPECT_NE(imported.body.find("Imported "), std::string::npos) << imported.body;
  EXPECT_EQ(count("listings"), 2 * db().query("SELECT COUNT(*) FROM listings WHERE owner_id = ?",
                                              {ana.account().id})[0]
                                       .int_at(0));

  // A day later it is gone: not offered, not served, and the upkeep reaps it.
  clock_.advance(std::chrono::hours(25));
  EXPECT_EQ(ana.get(link).status, 404);
  EXPECT_EQ(download_link(ana.get("/profile/export").body), "");
  EXPECT_EQ(media::reap_archives(db(), config_.exports_dir(), clock_.now_ms()), 1);
  EXPECT_EQ(count("export_archives"), 0);
  EXPECT_TRUE(fs::is_empty(config_.exports_dir()));
}

TEST_P(ExportsWebTest, WithoutAWorkerTheArchiveIsWrittenAtOnce) {
  config_.background_work = false;
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  ASSERT_EQ(ana.post_form("/profile/export", {}).status, 303);
  EXPECT_EQ(count("tasks"), 0);
  EXPECT_NE(download_link(ana.get("/profile/export").body), "");
}

TEST_P(ExportsWebTest, ARefusedImportChangesNothing) {
  auto ana = SignedInClient::with_session(port(), site_->accounts(), "ana@example.com");
  auto form = ana.get("/profile/import");
  ASSERT_EQ(form.status, 200);
  EXPECT_NE(form.body.find("<label for=\"archive\">"), std::string::npos);
  EXPECT_NE(form.body.find("enctype=\"multipart/form-data\""), std::string::npos);

  auto junk = upload(ana, "this is not a zip");
  EXPECT_EQ(junk.status, 422);
  EXPECT_NE(junk.body.find("Nothing was changed"), std::string::npos) << junk.body;
  EXPECT_NE(junk.body.find("not a zip archive"), std::string::npos) << junk.body;
  EXPECT_EQ(junk.body.find(config_.data_dir), std::string::npos) << "no server path shown";
  EXPECT_EQ(count("companies"), 0);

  // An account with records needs the box ticked.
  app::load_demo(db(), clock_, ana.account().id);
  config_.background_work = false;
  ASSERT_EQ(ana.post_form("/profile/export", {}).status, 303);
  auto archive = ana.get(download_link(ana.get("/profile/export").body));
  std::int64_t listings = count("listings");
  auto refused = upload(ana, archive.body);
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(count("listings"), listings);
  auto forced = upload(ana, archive.body, /*force=*/true);
  EXPECT_EQ(forced.status, 200) << forced.body;
  EXPECT_EQ(count("listings"), 2 * listings);
  // No uploaded archive is left in the spool folder.
  for (const auto& e : fs::recursive_directory_iterator(fs::path(config_.data_dir) / "tmp"))
    EXPECT_FALSE(e.is_regular_file()) << e.path();
}

PETO_BOTH_BACKENDS(ExportsWebTest);

}  // namespace
}  // namespace peto
