// /search over real HTTP: results grouped by kind with the words found
// marked, each linking to its record; the header's box on every page;
// another person's records never; an overlong search refused with the
// reason next to the box.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/factory.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

class SearchPagesTest : public peto::testing::SignedInPairTest {};

TEST_P(SearchPagesTest, ResultsAreGroupedMarkedAndLinked) {
  const std::int64_t ana = ana_->account().id;
  testing::Factory f(db(), clock_);
  f.without_auto_reminders(ana);
  const auto acme = f.company(ana, "Acme Robotics");
  const auto listing = f.listing(ana, acme, "Robotics Engineer");
  const auto application = f.application(ana, listing, "applied");
  f.listing(ben_->account().id, f.company(ben_->account().id, "Ben's Robotics"), "Ben's role");

  auto page = ana_->get("/search?q=robot");
  ASSERT_EQ(page.status, 200);
  const std::string& b = page.body;
  EXPECT_NE(b.find("2 results for “robot”"), std::string::npos) << b;
  EXPECT_NE(b.find(">Applications <span class=\"badge\">1</span>"), std::string::npos);
  EXPECT_NE(b.find("href=\"/applications/" + std::to_string(application) +
                   "\"><mark>Robotics</mark> Engineer</a>"),
            std::string::npos);
  EXPECT_EQ(b.find("href=\"/listings/" + std::to_string(listing) + "\""), std::string::npos)
      << "the application stands for its listing";
  EXPECT_NE(b.find("href=\"/companies/" + std::to_string(acme) + "\">Acme <mark>Robotics</mark>"),
            std::string::npos);
  EXPECT_LT(b.find(">Applications <span"), b.find(">Companies <span")) << "applications first";
  EXPECT_EQ(b.find("Ben"), std::string::npos) << "ben's records never show";
  EXPECT_NE(b.find("name=\"q\" placeholder=\"Search\" maxlength=\"200\" value=\"robot\""),
            std::string::npos)
      << "the header's box keeps the words";
}

TEST_P(SearchPagesTest, EveryPageHasTheBoxAndNothingFoundSaysSo) {
  auto home = ana_->get("/");
  EXPECT_NE(home.body.find("<form class=\"site-search\" method=\"get\" action=\"/search\""),
            std::string::npos);
  auto none = ana_->get("/search?q=zebra");
  EXPECT_EQ(none.status, 200);
  EXPECT_NE(none.body.find("Nothing matches every word"), std::string::npos);
  auto empty = ana_->get("/search");
  EXPECT_EQ(empty.status, 200);
  EXPECT_NE(empty.body.find("Every word must appear"), std::string::npos);
}

TEST_P(SearchPagesTest, AnOverlongSearchIsRefusedNextToTheBox) {
  auto r = ana_->get("/search?q=" + std::string(201, 'a'));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("id=\"search-q-error\""), std::string::npos);
  EXPECT_NE(r.body.find("aria-invalid=\"true\""), std::string::npos);
}

PETO_BOTH_BACKENDS(SearchPagesTest);

}  // namespace
}  // namespace peto::web
