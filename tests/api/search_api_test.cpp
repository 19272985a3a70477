// GET /api/v1/search: what the search page finds, as JSON; a token sees only
// the kinds its scopes read; bad parameters are problems that say which.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/api_fixture.h"
#include "tests/support/factory.h"

namespace peto::testing {
namespace {

using nlohmann::json;

class SearchApiTest : public ApiTest {
 protected:
  std::vector<std::string> kinds_of(const ApiReply& r) {
    std::vector<std::string> out;
    for (const auto& item : r.body["items"]) out.push_back(item["kind"].get<std::string>());
    return out;
  }
};

TEST_P(SearchApiTest, FindsAndSaysWhatMatched) {
  Factory f(db(), clock_);
  f.without_auto_reminders(ana_);
  const auto acme = f.company(ana_, "Acme Robotics");
  const auto listing = f.listing(ana_, acme, "Robotics Engineer");
  const auto application = f.application(ana_, listing, "applied");
  f.company(ben_, "Ben Robotics");

  auto r = client(ana_, {"read"}).get("/api/v1/search?q=robot");
  ASSERT_EQ(r.status, 200) << r.text;
  auto kinds = kinds_of(r);
  std::sort(kinds.begin(), kinds.end());
  EXPECT_EQ(kinds, (std::vector<std::string>{"applications", "companies"}))
      << "the application stands for its listing";
  json first;
  for (const auto& item : r.body["items"])
    if (item["kind"] == "applications") first = item;
  EXPECT_EQ(first["id"], application);
  EXPECT_EQ(first["title"], "Robotics Engineer");
  EXPECT_EQ(first["context"], "Acme Robotics");
  EXPECT_EQ(first["matched"], json::array({"Robotics"}));
  EXPECT_EQ(first["application_id"], nullptr);
  EXPECT_EQ(client(ana_, {"read"}).get("/api/v1/search?q=robot&limit=1").body["items"].size(), 1u);
}

TEST_P(SearchApiTest, ATokenSeesOnlyTheKindsItsScopesRead) {
  Factory f(db(), clock_);
  const auto acme = f.company(ana_, "Acme Robotics");
  f.application(ana_, f.listing(ana_, acme, "Robotics Engineer"), "applied");
  EXPECT_EQ(kinds_of(client(ana_, {"companies:read"}).get("/api/v1/search?q=robot")),
            std::vector<std::string>{"companies"});
  EXPECT_EQ(kinds_of(client(ana_, {"applications:read"}).get("/api/v1/search?q=robot")),
            std::vector<std::string>{"applications"})
      << "applications are found by their listing's words, without listing them";
  EXPECT_TRUE(kinds_of(client(ana_, {"profile:read"}).get("/api/v1/search?q=robot")).empty());
}

TEST_P(SearchApiTest, BadParametersAreProblems) {
  ApiClient ana = client(ana_, {"read"});
  const std::vector<std::string> bad = {"limit=0", "limit=201", "limit=x",
                                        "q=" + std::string(201, 'a'), "q=a&page=2"};
  for (const std::string& q : bad) {
    SCOPED_TRACE(q);
    auto r = ana.get("/api/v1/search?" + q);
    EXPECT_EQ(r.status, 400) << r.text;
    EXPECT_EQ(r.media_type(), "application/problem+json");
  }
  EXPECT_EQ(ana.get("/api/v1/search").body["items"], json::array()) << "no words, nothing found";
}

PETO_BOTH_BACKENDS(SearchApiTest);

}  // namespace
}  // namespace peto::testing
