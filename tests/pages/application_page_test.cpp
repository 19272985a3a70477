// The application page: a summary at the top (status and days in it,
// place, salary, closing day, the posting, the day it was sent), and its
// forms folded until they are wanted, a form re-shown with an error open.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

class ApplicationPageTest : public peto::testing::SignedInPairTest {
 protected:
  static bool has(const std::string& body, const std::string& part) {
    return body.find(part) != std::string::npos;
  }
};

TEST_P(ApplicationPageTest, TheSummarySaysWhatMattersAtAGlance) {
  auto listing = ana_->post_form("/listings", {{"company", "Acme"},
                                               {"role", "Data engineer"},
                                               {"location", "Berlin"},
                                               {"remote", "hybrid"},
                                               {"salary_min", "60000"},
                                               {"salary_max", "70000"},
                                               {"currency", "EUR"},
                                               {"closes_on", "2027-02-01"},
                                               {"url", "https://jobs.example/acme/1"}});
  ASSERT_EQ(listing.status, 303);
  auto app = ana_->post_form(listing.header("Location") + "/apply", {{"status", "applied"}});
  ASSERT_EQ(app.status, 303);
  clock_.advance(std::chrono::hours(24 * 2));

  auto page = ana_->get(app.header("Location"));
  ASSERT_EQ(page.status, 200);
  EXPECT_TRUE(has(page.body, "data-testid=\"status\">Applied<"));
  EXPECT_TRUE(has(page.body, "2 days in this stage"));
  EXPECT_TRUE(has(page.body, "<dd>Berlin · Hybrid</dd>")) << page.body;
  EXPECT_TRUE(has(page.body, "<dd>60000–70000 EUR</dd>"));
  EXPECT_TRUE(has(page.body, "<dd>2027-02-01</dd>"));
  EXPECT_TRUE(has(page.body, "href=\"https://jobs.example/acme/1\""));
  EXPECT_TRUE(has(page.body, "<dd>2027-01-15 (2 days ago)</dd>"));
  // Every form waits folded.
  EXPECT_FALSE(has(page.body, "class=\"fold\" open")) << page.body;
  for (const char* fold :
       {"Change status…", "Add to the timeline…", "Add a reminder…", "Add a note…"})
    EXPECT_TRUE(has(page.body, std::string("<summary>") + fold + "</summary>")) << fold;
}

TEST_P(ApplicationPageTest, AFormWithAnErrorComesBackOpen) {
  auto listing = ana_->post_form("/listings", {{"company", "Acme"}, {"role", "SRE"}});
  ASSERT_EQ(listing.status, 303);
  auto app = ana_->post_form(listing.header("Location") + "/apply", {});
  ASSERT_EQ(app.status, 303);
  const std::string href = app.header("Location");

  auto refused = ana_->post_form(href + "/status", {{"status", "hired"}});
  EXPECT_EQ(refused.status, 422);
  const auto open = refused.body.find("<details class=\"fold\" open>");
  ASSERT_NE(open, std::string::npos) << refused.body;
  EXPECT_LT(open, refused.body.find("id=\"new-status-error\""));
  EXPECT_EQ(refused.body.find("<details class=\"fold\" open>", open + 1), std::string::npos)
      << "only that form";

  auto bad_reminder = ana_->post_form(href + "/reminders", {{"title", ""}});
  EXPECT_EQ(bad_reminder.status, 422);
  const auto reminder_open = bad_reminder.body.find("<details class=\"fold\" open>");
  ASSERT_NE(reminder_open, std::string::npos);
  EXPECT_LT(reminder_open, bad_reminder.body.find("id=\"reminder-title-error\""));
}

// One place for notes: a note written on the page is read in the timeline,
// in its moment among the events, and opens to be edited.
TEST_P(ApplicationPageTest, NotesAreReadInTheTimeline) {
  auto listing = ana_->post_form("/listings", {{"company", "Acme"}, {"role", "SRE"}});
  ASSERT_EQ(listing.status, 303);
  auto app = ana_->post_form(listing.header("Location") + "/apply", {});
  ASSERT_EQ(app.status, 303);
  const std::string href = app.header("Location");
  clock_.advance(std::chrono::minutes(5));
  ASSERT_EQ(ana_->post_form(href + "/notes", {{"body", "Ask about the on-call rota"}}).status, 303);
  clock_.advance(std::chrono::minutes(5));
  ASSERT_EQ(ana_->post_form(href + "/status", {{"status", "applied"}}).status, 303);

  auto page = ana_->get(href);
  const auto timeline = page.body.find("data-testid=\"timeline\"");
  const auto note = page.body.find("Ask about the on-call rota");
  const auto applied = page.body.find("Draft → Applied");
  ASSERT_NE(timeline, std::string::npos);
  ASSERT_NE(note, std::string::npos);
  ASSERT_NE(applied, std::string::npos);
  EXPECT_LT(timeline, applied);
  EXPECT_LT(applied, note) << "newest first: the status change came after the note";
  const auto id = db().query("SELECT id FROM notes")[0].int_at(0);
  EXPECT_TRUE(has(page.body, "href=\"/notes/" + std::to_string(id) + "\">Edit note<"));
  EXPECT_FALSE(has(page.body, "id=\"notes-title\"")) << "no second place for notes";
}

// The interviews table names the company beside each interview.
TEST_P(ApplicationPageTest, TheInterviewsTableNamesTheCompany) {
  auto listing = ana_->post_form("/listings", {{"company", "Globex"}, {"role", "SRE"}});
  ASSERT_EQ(listing.status, 303);
  auto app = ana_->post_form(listing.header("Location") + "/apply", {});
  ASSERT_EQ(app.status, 303);
  const std::string id = app.header("Location").substr(app.header("Location").rfind('/') + 1);
  ASSERT_EQ(ana_->post_form(
                    "/interviews",
                    {{"application_id", id}, {"kind", "video"}, {"starts_at", "2027-01-20T10:00"}})
                .status,
            303);
  auto table = ana_->get("/interviews");
  ASSERT_EQ(table.status, 200);
  EXPECT_TRUE(has(table.body, "sort=company_name\">Company</a></th>")) << table.body;
  EXPECT_TRUE(has(table.body, "<td data-label=\"Company\">Globex</td>"));
}

PETO_BOTH_BACKENDS(ApplicationPageTest);

}  // namespace
}  // namespace peto::web
