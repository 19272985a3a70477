// Quick add, from the dashboard's field or /quick-add: a link or a pasted
// page becomes a capture to review; a line fills the form it names and says
// what it read; nothing is saved until that form is, and bad input changes
// nothing.
#include <gtest/gtest.h>

#include <string>

#include "core/timezone.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

class QuickAddPagesTest : public peto::testing::SignedInPairTest {
 protected:
  std::int64_t count(const std::string& table) {
    return db().query("SELECT COUNT(*) FROM " + table)[0].int_at(0);
  }
};

TEST_P(QuickAddPagesTest, TheFieldIsOnTheDashboardAndItsOwnPage) {
  for (const char* path : {"/", "/quick-add"}) {
    auto page = ana_->get(path);
    ASSERT_EQ(page.status, 200) << path;
    EXPECT_NE(page.body.find("action=\"/quick-add\""), std::string::npos) << path;
    EXPECT_NE(page.body.find("id=\"quick-add-text\""), std::string::npos) << path;
  }
  EXPECT_NE(
      ana_->get("/quick-add?text=Analyst%20at%20Acme").body.find(">Analyst at Acme</textarea>"),
      std::string::npos)
      << "?text= fills the field";
}

TEST_P(QuickAddPagesTest, ALineThatSaysAppliedFillsRecordAnApplication) {
  auto read =
      ana_->post_form("/quick-add", {{"text", "Data engineer at Acme, Berlin, applied yesterday"}});
  ASSERT_EQ(read.status, 303) << read.body;
  const std::string at = read.header("Location");
  ASSERT_EQ(at.rfind("/applications/record?", 0), 0u) << at;
  EXPECT_EQ(count("listings"), 0) << "nothing saved yet";

  auto form = ana_->get(at);
  ASSERT_EQ(form.status, 200);
  EXPECT_NE(form.body.find("flash--info"), std::string::npos) << "says it was filled in";
  for (const char* value :
       {"value=\"Data engineer\"", "value=\"Acme\"", "value=\"Berlin\"", "value=\"2027-01-14\""})
    EXPECT_NE(form.body.find(value), std::string::npos) << value;

  // Saving the form makes the company, the listing and the application.
  ASSERT_EQ(ana_->post_form("/applications/record", {{"company", "Acme"},
                                                     {"role", "Data engineer"},
                                                     {"location", "Berlin"},
                                                     {"applied_on", "2027-01-14"}})
                .status,
            303);
  EXPECT_EQ(count("applications"), 1);
}

TEST_P(QuickAddPagesTest, ADayItCannotReadIsSaidNotGuessed) {
  auto read = ana_->post_form("/quick-add", {{"text", "Analyst at Initech, applied soonish"}});
  ASSERT_EQ(read.status, 303);
  auto form = ana_->get(read.header("Location"));
  ASSERT_EQ(form.status, 200);
  EXPECT_NE(form.body.find("flash--warning"), std::string::npos);
  EXPECT_NE(form.body.find("soonish"), std::string::npos);
}

TEST_P(QuickAddPagesTest, ALineWithoutAppliedFillsANewListing) {
  auto read = ana_->post_form("/quick-add", {{"text", "SRE @ Hooli https://hooli.example/jobs/3"}});
  ASSERT_EQ(read.status, 303);
  const std::string at = read.header("Location");
  ASSERT_EQ(at.rfind("/listings/new?", 0), 0u) << at;
  auto form = ana_->get(at);
  ASSERT_EQ(form.status, 200);
  for (const char* value :
       {"value=\"SRE\"", "value=\"Hooli\"", "value=\"https://hooli.example/jobs/3\""})
    EXPECT_NE(form.body.find(value), std::string::npos) << value;
  EXPECT_NE(form.body.find("flash--info"), std::string::npos);
  EXPECT_EQ(ana_->get("/listings/new").body.find("flash--info"), std::string::npos)
      << "only a quick add's form says it";
}

TEST_P(QuickAddPagesTest, ALinkOrAPastedPageIsCaptured) {
  auto link = ana_->post_form("/quick-add", {{"text", " https://jobs.example.org/42 "}});
  ASSERT_EQ(link.status, 303) << link.body;
  EXPECT_EQ(link.header("Location").rfind("/captures/", 0), 0u);
  auto page = ana_->post_form(
      "/quick-add",
      {{"text",
        "<html><head><link rel=\"canonical\" href=\"https://jobs.example.org/7\"></head>"
        "<body><h1>Data engineer</h1></body></html>"}});
  ASSERT_EQ(page.status, 303) << page.body;
  auto rows = db().query("SELECT url, status FROM captures ORDER BY id");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].text("url"), "https://jobs.example.org/42");
  EXPECT_EQ(rows[0].text("status"), "fetching");
  EXPECT_EQ(rows[1].text("url"), "https://jobs.example.org/7");
  EXPECT_EQ(rows[1].text("status"), "pending");
}

TEST_P(QuickAddPagesTest, BadInputIsRefusedByTheFieldAndChangesNothing) {
  for (const std::string& text : {std::string("   "), std::string("no link here\njust text"),
                                  std::string(3 * 1024 * 1024, 'x')}) {
    auto refused = ana_->post_form("/quick-add", {{"text", text}});
    EXPECT_EQ(refused.status, 422) << text.substr(0, 20);
    EXPECT_NE(refused.body.find("id=\"quick-add-error\""), std::string::npos) << text.substr(0, 20);
    EXPECT_NE(refused.body.find("aria-invalid=\"true\""), std::string::npos);
  }
  auto ftp = ana_->post_form("/quick-add", {{"text", "<p>Role</p> ftp://jobs.example.org/1"}});
  EXPECT_EQ(ftp.status, 422);
  EXPECT_EQ(count("captures"), 0);
  EXPECT_EQ(count("listings"), 0);
}

PETO_BOTH_BACKENDS(QuickAddPagesTest);

}  // namespace
}  // namespace peto::web
