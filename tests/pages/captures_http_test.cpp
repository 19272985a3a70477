// The capture pages over real HTTP: paste a page, review what was read,
// correct it and save it as a listing; a link waits for its errand; a
// discarded page is recognised; somebody else's capture is 404; 30 an hour.
#include <gtest/gtest.h>

#include <memory>

#include "capture/errand.h"
#include "domain/captures.h"
#include "domain/records.h"
#include "tests/support/http_client.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"

namespace peto::web {
namespace {

using peto::testing::ClientResponse;
using peto::testing::SignedInClient;

const char* kPage = R"(<!doctype html><html><head><title>Data Engineer</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"JobPosting",
"title":"Data Engineer","hiringOrganization":{"@type":"Organization","name":"Ribeira Dados"},
"jobLocation":{"@type":"Place","address":{"addressLocality":"Porto","addressCountry":"PT"}},
"validThrough":"2027-03-01"}</script></head><body><h1>Data Engineer</h1></body></html>)";

class CapturesHttpTest : public peto::testing::SiteTest {
 protected:
  SignedInClient person(const std::string& email) {
    return SignedInClient::with_session(port(), site_->accounts(), email);
  }
  // The id at the end of a 303's Location "/captures/7".
  static std::int64_t id_in(const ClientResponse& r) {
    std::string at = r.header("Location");
    return std::stoll(at.substr(at.rfind('/') + 1));
  }
};

TEST_P(CapturesHttpTest, PasteReviewCorrectAndSave) {
  SignedInClient ana = person("ana@example.com");
  ASSERT_EQ(ana.get("/captures").status, 200);
  ClientResponse made =
      ana.post_form("/captures", {{"url", "https://jobs.example/de-1"}, {"html", kPage}});
  ASSERT_EQ(made.status, 303) << made.body;
  const std::int64_t id = id_in(made);
  ClientResponse review = ana.get("/captures/" + std::to_string(id));
  ASSERT_EQ(review.status, 200);
  EXPECT_NE(review.body.find("value=\"Data Engineer\""), std::string::npos);
  EXPECT_NE(review.body.find("value=\"Ribeira Dados\""), std::string::npos);
  EXPECT_NE(review.body.find("value=\"2027-03-01\""), std::string::npos);
  EXPECT_EQ(count("listings"), 0) << "nothing is saved before the review";
  // The pasted source is kept, and handed back only as text to save.
  ASSERT_NE(review.body.find("/captures/" + std::to_string(id) + "/page"), std::string::npos);
  ClientResponse source = ana.get("/captures/" + std::to_string(id) + "/page");
  EXPECT_EQ(source.status, 200);
  EXPECT_EQ(source.body, kPage);
  EXPECT_TRUE(source.header("Content-Type").starts_with("text/plain"));
  EXPECT_TRUE(source.header("Content-Disposition").starts_with("attachment"));
  EXPECT_EQ(person("bob@example.com").get("/captures/" + std::to_string(id) + "/page").status, 404);

  ClientResponse saved = ana.post_form("/captures/" + std::to_string(id) + "/accept",
                                       {{"role", "Senior Data Engineer"},
                                        {"company", "Ribeira Dados"},
                                        {"url", "https://jobs.example/de-1"},
                                        {"location", "Porto"},
                                        {"closes_on", "2027-03-01"},
                                        {"apply", "1"}});
  ASSERT_EQ(saved.status, 303) << saved.body;
  EXPECT_TRUE(saved.header("Location").starts_with("/applications/"));
  auto listing = db().query("SELECT role, closes_on FROM listings");
  ASSERT_EQ(listing.size(), 1u);
  EXPECT_EQ(listing[0].text(0), "Senior Data Engineer") << "the correction wins";
  EXPECT_EQ(count("applications"), 1);
  EXPECT_EQ(count("listing_events"), 1);

  // The listing's history names the capture it came from.
  auto listing_id = db().query("SELECT id FROM listings")[0].int_at(0);
  ClientResponse shown = ana.get("/listings/" + std::to_string(listing_id));
  ASSERT_EQ(shown.status, 200);
  EXPECT_NE(shown.body.find("Saved from jobs.example/de-1"), std::string::npos);
  EXPECT_NE(shown.body.find("href=\"/captures/" + std::to_string(id) + "\""), std::string::npos);

  ClientResponse again = ana.post_form("/captures/" + std::to_string(id) + "/accept",
                                       {{"role", "X"}, {"company", "Y"}});
  EXPECT_EQ(again.status, 422);
  EXPECT_EQ(count("listings"), 1);

  // The same page saved again says so, and leads to the listing it became.
  const std::int64_t later =
      id_in(ana.post_form("/captures", {{"url", "https://jobs.example/de-1"}, {"html", kPage}}));
  ClientResponse seen = ana.get("/captures/" + std::to_string(later));
  EXPECT_NE(seen.body.find("You saved this page before."), std::string::npos);
  EXPECT_NE(seen.body.find("href=\"/listings/" + std::to_string(listing_id) + "\""),
            std::string::npos)
      << seen.body;
}

TEST_P(CapturesHttpTest, TheBookmarkletOpensThePageWithTheLinkFilledIn) {
  SignedInClient ana = person("ana@example.com");
  ClientResponse page = ana.get("/captures?url=https%3A%2F%2Fjobs.example%2Fx%3Fa%3D1");
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("value=\"https://jobs.example/x?a=1\""), std::string::npos);
  // The bookmark itself points back at this site (the Host asked for) and its /captures.
  auto at = page.body.find("href=\"javascript:location.href=");
  ASSERT_NE(at, std::string::npos) << page.body;
  std::string bookmark = page.body.substr(at, page.body.find('"', at + 6) - at);
  EXPECT_NE(bookmark.find("http://127.0.0.1/captures?url="), std::string::npos) << bookmark;
  EXPECT_NE(bookmark.find("encodeURIComponent(location.href)"), std::string::npos) << bookmark;
}

TEST_P(CapturesHttpTest, TheProfileOffersTheBookmarkletToo) {
  SignedInClient ana = person("ana@example.com");
  ClientResponse profile = ana.get("/profile");
  ASSERT_EQ(profile.status, 200);
  EXPECT_NE(profile.body.find("href=\"javascript:location.href="), std::string::npos);
  EXPECT_NE(profile.body.find("http://127.0.0.1/captures?url="), std::string::npos);
}

TEST_P(CapturesHttpTest, AnInvalidReviewKeepsWhatWasTypedAndSavesNothing) {
  SignedInClient ana = person("ana@example.com");
  const std::int64_t id =
      id_in(ana.post_form("/captures", {{"url", "https://jobs.example/de-1"}, {"html", kPage}}));
  ClientResponse refused =
      ana.post_form("/captures/" + std::to_string(id) + "/accept", {{"role", ""},
                                                                    {"company", "Brand New Co"},
                                                                    {"url", "ftp://nope"},
                                                                    {"closes_on", "2027-02-30"}});
  EXPECT_EQ(refused.status, 422);
  EXPECT_NE(refused.body.find("aria-invalid=\"true\""), std::string::npos);
  EXPECT_NE(refused.body.find("value=\"Brand New Co\""), std::string::npos);
  EXPECT_EQ(count("companies"), 0);
  EXPECT_EQ(count("listings"), 0);
}

TEST_P(CapturesHttpTest, ALinkWaitsForItsErrandAndLooksAgain) {
  SignedInClient ana = person("ana@example.com");
  ClientResponse made = ana.post_form("/captures", {{"url", "https://jobs.example/de-2"}});
  ASSERT_EQ(made.status, 303) << made.body;
  auto task = db().query("SELECT kind, owner_id, payload FROM tasks");
  ASSERT_EQ(task.size(), 1u);
  EXPECT_EQ(task[0].text(0), capture::kFetchTask);
  EXPECT_EQ(task[0].int_at(1), ana.account().id);
  ClientResponse waiting = ana.get("/captures/" + std::to_string(id_in(made)));
  EXPECT_EQ(waiting.status, 200);
  EXPECT_EQ(waiting.header("Refresh"), "3");
}

TEST_P(CapturesHttpTest, BadLinksAreRefusedWithTheFormKept) {
  SignedInClient ana = person("ana@example.com");
  for (const char* url : {"", "ftp://jobs.example/1", "javascript:alert(1)", "jobs.example"}) {
    ClientResponse r = ana.post_form("/captures", {{"url", url}});
    EXPECT_EQ(r.status, 422) << url;
    EXPECT_NE(r.body.find("aria-invalid=\"true\""), std::string::npos) << url;
  }
  EXPECT_EQ(count("captures"), 0);
  EXPECT_EQ(count("tasks"), 0);
}

TEST_P(CapturesHttpTest, ADiscardedPageIsRecognisedAndOthersCannotTouchIt) {
  SignedInClient ana = person("ana@example.com");
  SignedInClient bob = person("bob@example.com");
  const std::int64_t first =
      id_in(ana.post_form("/captures", {{"url", "https://jobs.example/de-1"}, {"html", kPage}}));
  const std::string path = "/captures/" + std::to_string(first);
  EXPECT_EQ(bob.get(path).status, 404);
  EXPECT_EQ(bob.post_form(path + "/accept", {{"role", "X"}, {"company", "Y"}}).status, 404);
  EXPECT_EQ(bob.post_form(path + "/discard", {}).status, 404);
  EXPECT_EQ(ana.post_form(path + "/discard", {}).status, 303);
  const std::int64_t second = id_in(ana.post_form(
      "/captures", {{"url", "https://www.jobs.example/de-1?utm_source=x"}, {"html", kPage}}));
  ClientResponse seen = ana.get("/captures/" + std::to_string(second));
  EXPECT_NE(seen.body.find("You saved this page before."), std::string::npos);
}

// Text copied from a posting and pasted is read; a page nothing could be
// read from says so on the review page.
TEST_P(CapturesHttpTest, PastedTextIsReadAndNothingReadIsSaid) {
  SignedInClient ana = person("ana@example.com");
  const std::int64_t text = id_in(ana.post_form(
      "/captures", {{"url", "https://jobs.example/t-1"},
                    {"html", "Backend Engineer\nCompany: Acme\nLocation: Berlin\n"}}));
  ClientResponse read = ana.get("/captures/" + std::to_string(text));
  EXPECT_NE(read.body.find("value=\"Backend Engineer\""), std::string::npos) << read.body;
  EXPECT_NE(read.body.find("value=\"Acme\""), std::string::npos);
  EXPECT_EQ(read.body.find("data-testid=\"nothing-read\""), std::string::npos);

  const std::int64_t nothing = id_in(ana.post_form(
      "/captures", {{"url", "https://jobs.example/t-2"}, {"html", "<p>cookies</p>"}}));
  ClientResponse empty = ana.get("/captures/" + std::to_string(nothing));
  EXPECT_NE(empty.body.find("data-testid=\"nothing-read\""), std::string::npos) << empty.body;
}

TEST_P(CapturesHttpTest, ThirtyCapturesAnHour) {
  SignedInClient ana = person("ana@example.com");
  for (int i = 0; i < 30; ++i) {
    ClientResponse r = ana.post_form(
        "/captures", {{"url", "https://jobs.example/" + std::to_string(i)}, {"html", kPage}});
    ASSERT_EQ(r.status, 303) << i;
  }
  ClientResponse refused =
      ana.post_form("/captures", {{"url", "https://jobs.example/31"}, {"html", kPage}});
  EXPECT_EQ(refused.status, 429);
  EXPECT_NE(refused.body.find("30 pages this hour"), std::string::npos);
  EXPECT_EQ(count("captures"), 30);
  clock_.advance(std::chrono::hours(1));
  EXPECT_EQ(
      ana.post_form("/captures", {{"url", "https://jobs.example/31"}, {"html", kPage}}).status,
      303);
}

PETO_BOTH_BACKENDS(CapturesHttpTest);

}  // namespace
}  // namespace peto::web
