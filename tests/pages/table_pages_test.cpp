// The record tables without JavaScript: a heading sorts and says so, the
// next page keeps the order, filters narrow (and name what they could not
// read), the columns are the person's choice, and one action changes every
// ticked row or, refused, none of them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pages/site.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

using peto::testing::ClientResponse;

class TablePagesTest : public peto::testing::SignedInPairTest {
 protected:
  // A listing at `company` and its application, sent; the application's id.
  std::string applied(const std::string& company, const std::string& role) {
    auto made = ana_->post_form("/listings", {{"company", company}, {"role", role}});
    EXPECT_EQ(made.status, 303);
    auto app = ana_->post_form(made.header("Location") + "/apply", {{"status", "applied"}});
    EXPECT_EQ(app.status, 303);
    const std::string path = app.header("Location");
    return path.substr(path.rfind('/') + 1);
  }
  static bool has(const std::string& body, const std::string& part) {
    return body.find(part) != std::string::npos;
  }
  // Where `part` first is in `body` (npos when it is not).
  static std::size_t at(const std::string& body, const std::string& part) {
    return body.find(part);
  }
  // The page after the redirect `r`, with the message it left.
  ClientResponse follow(const ClientResponse& r) {
    EXPECT_EQ(r.status, 303) << r.body;
    const std::string flash = peto::testing::cookie_of(r, kFlashCookie);
    return ana_->request("GET", r.header("Location"), "",
                         {{"Cookie", std::string(kFlashCookie) + "=" + flash}});
  }
  std::string status_of(const std::string& id) {
    return db().query("SELECT status FROM applications WHERE id = ?", {std::stoll(id)})[0].text(
        "status");
  }
};

TEST_P(TablePagesTest, AHeadingSortsBothWaysAndTheNextPageKeepsTheOrder) {
  applied("Zed", "Ops");
  applied("acme", "SRE");
  applied("Midway", "Dev");

  auto table = ana_->get("/applications?view=table&tab=all");
  ASSERT_EQ(table.status, 200);
  EXPECT_TRUE(has(table.body,
                  "href=\"/applications?view=table&amp;tab=all&amp;sort=company_name\">"
                  "Company</a>"))
      << table.body;

  auto up = ana_->get("/applications?view=table&tab=all&sort=company_name");
  EXPECT_TRUE(has(up.body,
                  "aria-sort=\"ascending\"><a href=\"/applications?view=table&amp;tab="
                  "all&amp;sort=company_name&amp;dir=desc\">Company"))
      << "the sorted heading says so, and sorts the other way next";
  EXPECT_LT(at(up.body, ">acme<"), at(up.body, ">Midway<"));
  EXPECT_LT(at(up.body, ">Midway<"), at(up.body, ">Zed<"));

  auto down = ana_->get("/applications?view=table&tab=all&sort=company_name&dir=desc");
  EXPECT_TRUE(has(down.body, "aria-sort=\"descending\""));
  EXPECT_LT(at(down.body, ">Zed<"), at(down.body, ">Midway<"));

  // Past a page, the next one goes on in the same order.
  for (int i = 0; i < 50; ++i) applied("Company " + std::to_string(100 + i), "Role");
  auto first = ana_->get("/applications?view=table&tab=all&sort=company_name&dir=desc");
  EXPECT_TRUE(has(first.body, ">Zed<"));
  EXPECT_FALSE(has(first.body, ">acme<"));
  const auto next = first.body.find("rel=\"next\"");
  ASSERT_NE(next, std::string::npos);
  const auto href = first.body.rfind("href=\"", next) + 6;
  std::string link = first.body.substr(href, first.body.find('"', href) - href);
  for (auto amp = link.find("&amp;"); amp != std::string::npos; amp = link.find("&amp;"))
    link.replace(amp, 5, "&");
  EXPECT_TRUE(has(link, "sort=company_name&dir=desc&after=")) << link;
  auto second = ana_->get(link);
  ASSERT_EQ(second.status, 200);
  EXPECT_TRUE(has(second.body, ">acme<")) << "the last of Z to A";
  EXPECT_FALSE(has(second.body, ">Zed<"));
}

TEST_P(TablePagesTest, FiltersNarrowAndWhatTheyCannotReadIsSaidByItsField) {
  const std::string acme = applied("Acme", "SRE");
  applied("Globex", "Dev");
  ASSERT_EQ(ana_->post_form("/tags", {{"name", "remote"}, {"colour", "green"}}).status, 303);
  const auto tag = std::to_string(db().query("SELECT id FROM tags")[0].int_at(0));
  ASSERT_EQ(ana_->post_form("/applications/" + acme + "/tags", {{"tag", tag}}).status, 303);

  for (const std::string& query :
       std::vector<std::string>{"company=ACME", "tag=remote", "status=applied&company=acme"}) {
    auto narrowed = ana_->get("/applications?view=table&tab=all&" + query);
    ASSERT_EQ(narrowed.status, 200) << query;
    EXPECT_TRUE(has(narrowed.body, ">Acme<")) << query;
    EXPECT_FALSE(has(narrowed.body, ">Globex<")) << query;
    EXPECT_TRUE(has(narrowed.body, "<details class=\"fold\" open>")) << "the filters stay open";
  }
  auto none = ana_->get("/applications?view=table&tab=all&status=rejected");
  EXPECT_FALSE(has(none.body, ">Acme<"));

  auto unknown = ana_->get("/applications?view=table&tab=all&company=Initech&from=2026-02-30");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_TRUE(has(unknown.body, "You have no company called “Initech”.")) << unknown.body;
  EXPECT_TRUE(has(unknown.body,
                  "id=\"filter-from\" name=\"from\" type=\"date\" value=\"2026-02-30\""
                  " aria-invalid=\"true\""));
  EXPECT_TRUE(has(unknown.body, ">Globex<")) << "the table is shown, not narrowed by it";

  auto backwards =
      ana_->get("/applications?view=table&tab=all&range=applied_at&from=2027-02-01&to=2027-01-01");
  EXPECT_EQ(backwards.status, 400);
  EXPECT_TRUE(has(backwards.body, "The end comes before the start."));

  EXPECT_FALSE(has(ben_->get("/applications?view=table&tab=all&company=Acme").body, ">SRE<"))
      << "another person's company is no company of theirs";
}

TEST_P(TablePagesTest, AColumnThatCannotBeSortedOffersNoOrder) {
  ASSERT_EQ(ana_->post_form("/notes", {{"body", "Ask about the team"}}).status, 303);
  auto notes = ana_->get("/notes?sort=body");
  ASSERT_EQ(notes.status, 200);
  EXPECT_FALSE(has(notes.body, "aria-sort")) << "a note's text is not an order";
  EXPECT_FALSE(has(notes.body, "sort=body"));
  EXPECT_FALSE(has(notes.body, "<option value=\"body\""));
}

TEST_P(TablePagesTest, ThePersonChoosesTheColumns) {
  applied("Acme", "SRE");
  auto chosen = ana_->get("/applications?view=table&tab=all&col=company&col=created_at");
  ASSERT_EQ(chosen.status, 200);
  EXPECT_TRUE(has(chosen.body, ">Added</a></th>"));
  EXPECT_FALSE(has(chosen.body, ">Channel</a></th>")) << "a column not chosen is not shown";
  EXPECT_TRUE(has(chosen.body, "<td data-label=\"Added\">"));
  EXPECT_TRUE(has(chosen.body, "name=\"col\" value=\"created_at\" checked"));
  // Sorting keeps the choice.
  EXPECT_TRUE(has(chosen.body, "col=company&amp;col=created_at&amp;sort=created_at\">"));
}

TEST_P(TablePagesTest, OneActionChangesEveryTickedRowOrNone) {
  const std::string a = applied("Acme", "SRE");
  const std::string b = applied("Globex", "Dev");
  const std::string c = applied("Initech", "Ops");
  const std::string back = "/applications?view=table&tab=all&sort=company_name";

  auto moved = ana_->post_form(
      "/applications/bulk",
      {{"id", a}, {"id", b}, {"action", "status:interviewing"}, {"return_to", back}});
  ASSERT_EQ(moved.status, 303) << moved.body;
  EXPECT_EQ(moved.header("Location"), back) << "back to the table as it was";
  EXPECT_TRUE(has(follow(moved).body, "Moved 2 to Interviewing."));
  EXPECT_EQ(status_of(a), "interviewing");
  EXPECT_EQ(status_of(b), "interviewing");
  EXPECT_EQ(status_of(c), "applied");
  EXPECT_EQ(
      db().query("SELECT COUNT(*) FROM application_events WHERE to_status = 'interviewing'")[0]
          .int_at(0),
      2)
      << "each change is on its application's timeline";

  // Ben's application among the ticked rows: nothing at all changes.
  auto made = ben_->post_form("/listings", {{"company", "Hooli"}, {"role", "SRE"}});
  auto bens = ben_->post_form(made.header("Location") + "/apply", {{"status", "applied"}});
  const std::string ben = bens.header("Location").substr(bens.header("Location").rfind('/') + 1);
  auto refused =
      ana_->post_form("/applications/bulk",
                      {{"id", c}, {"id", ben}, {"action", "status:rejected"}, {"return_to", back}});
  EXPECT_EQ(refused.status, 422);
  EXPECT_TRUE(has(refused.body, "One of the ticked rows is no longer there; nothing was changed."));
  EXPECT_TRUE(has(refused.body, "aria-describedby=\"bulk-error\""));
  EXPECT_EQ(status_of(c), "applied");
  EXPECT_EQ(status_of(ben), "applied");

  EXPECT_EQ(
      ana_->post_form("/applications/bulk", {{"action", "trash"}, {"return_to", back}}).status, 422)
      << "nothing ticked";
  auto no_action = ana_->post_form("/applications/bulk", {{"id", a}, {"return_to", back}});
  EXPECT_EQ(no_action.status, 422);
  EXPECT_TRUE(has(no_action.body, "Choose what to do with the ticked rows."));

  ASSERT_EQ(ana_->post_form("/tags", {{"name", "remote"}, {"colour", "green"}}).status, 303);
  const auto tag = std::to_string(db().query("SELECT id FROM tags")[0].int_at(0));
  auto tagged = ana_->post_form(
      "/applications/bulk", {{"id", a}, {"id", c}, {"action", "tag:" + tag}, {"return_to", back}});
  EXPECT_TRUE(has(follow(tagged).body, "Tagged 2 with “remote”."));
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM application_tags")[0].int_at(0), 2);

  auto trashed = ana_->post_form("/applications/bulk",
                                 {{"id", b}, {"id", c}, {"action", "trash"}, {"return_to", back}});
  auto after = follow(trashed);
  EXPECT_TRUE(has(after.body, "Moved 2 to the trash."));
  EXPECT_TRUE(has(after.body, "href=\"/trash\""));
  EXPECT_FALSE(has(after.body, ">Globex<"));
  EXPECT_TRUE(has(after.body, ">Acme<"));
}

TEST_P(TablePagesTest, ListingsAreShortlistedOrDiscardedTogether) {
  auto one = ana_->post_form("/listings", {{"company", "Acme"}, {"role", "SRE"}});
  auto two = ana_->post_form("/listings", {{"company", "Globex"}, {"role", "Dev"}});
  auto id = [](const ClientResponse& r) {
    return r.header("Location").substr(r.header("Location").rfind('/') + 1);
  };
  auto done = ana_->post_form("/listings/bulk", {{"id", id(one)},
                                                 {"id", id(two)},
                                                 {"action", "state:shortlisted"},
                                                 {"return_to", "/listings?view=table&tab=all"}});
  EXPECT_EQ(done.status, 303);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM listings WHERE state = 'shortlisted'")[0].int_at(0),
            2);
  EXPECT_EQ(
      ana_->post_form("/listings/bulk", {{"id", id(one)}, {"action", "status:applied"}}).status,
      422)
      << "a listing has no status";
}

TEST_P(TablePagesTest, AViewIsSavedByNameShownMarkedAndForgotten) {
  applied("Acme", "SRE");
  ASSERT_EQ(ana_->post_form("/tags", {{"name", "Remote first"}, {"colour", "green"}}).status, 303);
  // What the table does not read is not kept (`junk`, the place in it).
  auto saved = ana_->post_form(
      "/applications/views",
      {{"name", "  Remote ones "},
       {"query", "view=table&tab=all&tag=remote-first&sort=company_name&junk=1&after=4.n"}});
  ASSERT_EQ(saved.status, 303) << saved.body;
  const std::string kept = "/applications?view=table&tag=remote-first&tab=all&sort=company_name";
  EXPECT_EQ(saved.header("Location"), kept);
  auto page = follow(saved);
  EXPECT_TRUE(has(page.body, "Saved the view “Remote ones”."));
  EXPECT_TRUE(has(page.body,
                  "<a href=\"/applications?view=table&amp;tag=remote-first&amp;tab=all"
                  "&amp;sort=company_name\" aria-current=\"page\">Remote ones</a>"))
      << page.body;
  EXPECT_FALSE(
      has(ana_->get("/applications?view=table&tab=all").body, "aria-current=\"page\">Remote"))
      << "another table is not that view";

  // The same name again replaces it; no name is refused by its field.
  ASSERT_EQ(ana_->post_form("/applications/views",
                            {{"name", "remote ONES"}, {"query", "view=table&tab=open"}})
                .status,
            303);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM saved_views")[0].int_at(0), 1);
  auto nameless = ana_->post_form("/applications/views", {{"name", " "}, {"query", "tab=all"}});
  EXPECT_EQ(nameless.status, 422);
  EXPECT_TRUE(has(nameless.body, "id=\"view-name-error\">This field is required."));

  const auto id = std::to_string(db().query("SELECT id FROM saved_views")[0].int_at(0));
  EXPECT_EQ(ben_->post_form("/applications/views/" + id + "/delete", {}).status, 404)
      << "only its owner forgets it";
  auto forgotten = ana_->post_form("/applications/views/" + id + "/delete",
                                   {{"return_to", "/applications?view=table"}});
  EXPECT_EQ(forgotten.status, 303);
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM saved_views")[0].int_at(0), 0);
}

PETO_BOTH_BACKENDS(TablePagesTest);

}  // namespace
}  // namespace peto::web
