// The boards without JavaScript: a card says its company, days in its
// stage, what is next and its tags; its form moves it (an ending status with
// its reason, in place) and comes back to the board; a listing card is
// shortlisted or discarded from the board; each card and column carries
// what the script needs to post the same change.
#include <gtest/gtest.h>

#include <string>

#include "core/timezone.h"
#include "tests/support/factory.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

class BoardPagesTest : public peto::testing::SignedInPairTest {
 protected:
  // A listing at Acme and its application, sent; the application's path.
  std::string applied(const std::string& role) {
    auto made = ana_->post_form("/listings", {{"company", "Acme"}, {"role", role}});
    EXPECT_EQ(made.status, 303);
    auto app = ana_->post_form(made.header("Location") + "/apply", {{"status", "applied"}});
    EXPECT_EQ(app.status, 303);
    return app.header("Location");
  }
  static bool has(const std::string& body, const std::string& part) {
    return body.find(part) != std::string::npos;
  }
};

TEST_P(BoardPagesTest, ACardSaysWhereItStandsAndWhatIsNext) {
  const std::string app = applied("Data engineer");
  clock_.advance(std::chrono::hours(24 * 3));
  const std::string due = format_local(clock_.now_ms() + 3600 * 1000, "UTC", "%Y-%m-%dT%H:%M");
  ASSERT_EQ(ana_->post_form(app + "/reminders", {{"title", "Call Zoe"}, {"due_at", due}}).status,
            303);
  ASSERT_EQ(ana_->post_form("/tags", {{"name", "remote"}, {"colour", "green"}}).status, 303);
  const auto tag = db().query("SELECT id FROM tags")[0].int_at(0);
  ASSERT_EQ(ana_->post_form(app + "/tags", {{"tag", std::to_string(tag)}}).status, 303);

  auto board = ana_->get("/applications");
  ASSERT_EQ(board.status, 200);
  EXPECT_TRUE(has(board.body, "3 days in this stage")) << board.body;
  EXPECT_TRUE(has(board.body, "Next: Call Zoe"));
  EXPECT_TRUE(has(board.body, "class=\"tag tag--green\">remote<"));
  EXPECT_TRUE(has(board.body, "class=\"board__company\">Acme<"));
  // What the script posts: the card's action and field, the column's value.
  const std::string id = app.substr(app.rfind('/') + 1);
  EXPECT_TRUE(has(board.body, "data-card=\"" + id + "\" data-action=\"" + app +
                                  "/status\" data-field=\"status\" data-value=\"applied\""));
  EXPECT_TRUE(has(board.body, "data-column=\"screening\" data-value=\"screening\""));
  EXPECT_TRUE(has(board.body, "<details class=\"board__fold\" open>")) << "a column can fold";
  EXPECT_FALSE(has(ben_->get("/applications").body, "Data engineer"));
}

// A long column shows its 20 newest cards, counts all of them and opens the
// rest as a table.
TEST_P(BoardPagesTest, ALongColumnCountsAllAndShowsTheNewest) {
  const std::int64_t ana = ana_->account().id;
  testing::Factory f(db(), clock_);
  const std::int64_t acme = f.company(ana, "Acme");
  for (int n = 1; n <= 23; ++n)
    f.application(ana, f.listing(ana, acme, "Role " + std::to_string(n)), "applied");
  f.application(ana, f.listing(ana, acme, "Talking"), "screening");

  auto board = ana_->get("/applications");
  ASSERT_EQ(board.status, 200);
  EXPECT_TRUE(has(board.body, "id=\"column-applied\">Applied <span class=\"badge\">23</span>"))
      << board.body;
  EXPECT_TRUE(has(board.body, "id=\"column-screening\">Screening <span class=\"badge\">1<"));
  EXPECT_TRUE(has(board.body, ">Role 23</a>"));
  EXPECT_TRUE(has(board.body, ">Role 4</a>"));
  EXPECT_FALSE(has(board.body, ">Role 3</a>")) << "past the twentieth";
  EXPECT_TRUE(has(board.body, "href=\"/applications?view=table&amp;tab=all&amp;status=applied\""));
  EXPECT_FALSE(has(board.body, "status=screening\">"));
}

TEST_P(BoardPagesTest, TheCardsFormMovesItAndAnEndingTakesItsReason) {
  const std::string app = applied("SRE");
  auto moved = ana_->post_form(
      app + "/status",
      {{"status", "screening"}, {"end_reason", ""}, {"return_to", "/applications"}});
  ASSERT_EQ(moved.status, 303);
  EXPECT_EQ(moved.header("Location"), "/applications");
  EXPECT_TRUE(has(ana_->get("/applications").body, "In this stage since today"));

  EXPECT_TRUE(has(ana_->get("/applications").body, "name=\"end_reason\""))
      << "the reason is in the card's form";
  auto ended = ana_->post_form(
      app + "/status",
      {{"status", "rejected"}, {"end_reason", "not_a_match"}, {"return_to", "/applications"}});
  ASSERT_EQ(ended.status, 303);
  auto row = db().query("SELECT status FROM applications")[0];
  EXPECT_EQ(row.text("status"), "rejected");
  EXPECT_EQ(
      db().query("SELECT end_reason FROM application_events WHERE to_status = 'rejected'")[0].text(
          "end_reason"),
      "not_a_match");
  EXPECT_FALSE(has(ana_->get("/applications").body, ">SRE<")) << "an ended one leaves the board";
}

TEST_P(BoardPagesTest, AListingIsShortlistedAndDiscardedFromItsCard) {
  auto made = ana_->post_form("/listings", {{"company", "Globex"}, {"role", "Analyst"}});
  ASSERT_EQ(made.status, 303);
  const std::string listing = made.header("Location");
  auto board = ana_->get("/listings");
  EXPECT_TRUE(has(board.body, "aria-label=\"Shortlist “Analyst”\""));
  EXPECT_TRUE(has(board.body, "data-column=\"undecided\" data-value=\"new\""));
  EXPECT_TRUE(has(board.body, "data-action=\"" + listing + "/state\" data-field=\"state\""));

  auto shortlisted =
      ana_->post_form(listing + "/state", {{"state", "shortlisted"}, {"return_to", "/listings"}});
  ASSERT_EQ(shortlisted.status, 303);
  EXPECT_EQ(shortlisted.header("Location"), "/listings");
  EXPECT_EQ(db().query("SELECT state FROM listings")[0].text("state"), "shortlisted");
  EXPECT_FALSE(has(ana_->get("/listings").body, "aria-label=\"Shortlist “Analyst”\""))
      << "a shortlisted card offers Discard only";

  ASSERT_EQ(
      ana_->post_form(listing + "/state", {{"state", "discarded"}, {"return_to", "/listings"}})
          .status,
      303);
  EXPECT_FALSE(has(ana_->get("/listings").body, ">Analyst<"));
  EXPECT_EQ(ben_->post_form(listing + "/state", {{"state", "new"}}).status, 404);
}

PETO_BOTH_BACKENDS(BoardPagesTest);

}  // namespace
}  // namespace peto::web
