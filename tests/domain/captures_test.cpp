// Captures on both backends: a pasted page is read and waits for review;
// accepting makes the company, the listing (and the application) in one
// transaction with a `capture` entry on the listing's history; a discarded
// page is recognised again; somebody else's capture is out of reach.
#include "domain/captures.h"

#include <gtest/gtest.h>

#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using nlohmann::json;

const char* kPage = R"(<!doctype html><html><head><title>Platform Engineer</title>
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "JobPosting", "title": "Platform Engineer",
 "hiringOrganization": {"@type": "Organization", "name": "Nordlys AB"},
 "jobLocation": {"@type": "Place", "address": {"addressLocality": "Stockholm",
                 "addressCountry": "SE"}},
 "validThrough": "2027-02-28", "description": "<p>Run our platform.</p>"}
</script></head><body><h1>Platform Engineer</h1></body></html>)";

class CapturesTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    captures_ = std::make_unique<Captures>(records());
  }

  Capture pasted(const std::string& url, std::int64_t owner = 0) {
    auto made = captures_->from_html(owner == 0 ? owner_ : owner, url, kPage, "web");
    EXPECT_TRUE(std::holds_alternative<Capture>(made));
    return std::holds_alternative<Capture>(made) ? std::get<Capture>(made) : Capture();
  }

  static Input reviewed(json values) {
    Input in;
    in.values = std::move(values);
    return in;
  }

  std::unique_ptr<Captures> captures_;
};

TEST(UrlKey, KeepsWhatNamesThePage) {
  EXPECT_EQ(url_key("https://www.Jobs.Example/a/42/?utm_source=x&b=2&a=1#apply"),
            "jobs.example/a/42?a=1&b=2");
  EXPECT_EQ(url_key("http://jobs.example:80/a"), url_key("https://jobs.example/a"));
  EXPECT_EQ(url_key("https://jobs.example:8443/a"), "jobs.example:8443/a");
  EXPECT_EQ(url_key("https://jobs.example/"), "jobs.example");
  EXPECT_EQ(url_key("https://jobs.example/a?gclid=1&fbclid=2"), "jobs.example/a");
  EXPECT_EQ(url_key("ftp://jobs.example/a"), "");
  EXPECT_EQ(url_key("javascript:alert(1)"), "");
  EXPECT_EQ(url_key("not a url"), "");
}

TEST_P(CapturesTest, APastedPageIsReadAndWaitsForReview) {
  Capture c = pasted("https://jobs.example/42?utm_source=feed");
  EXPECT_EQ(c["status"], "pending");
  EXPECT_EQ(c["origin"], "web");
  EXPECT_EQ(c["parser"], "json-ld");
  EXPECT_EQ(c["data"]["role"], "Platform Engineer");
  EXPECT_EQ(c["data"]["company"], "Nordlys AB");
  EXPECT_EQ(c["data"]["closes_on"], "2027-02-28");
  EXPECT_EQ(c["url_key"], "jobs.example/42");
  EXPECT_EQ(c["seen_before"], false);
  EXPECT_EQ(count("listings"), 0) << "nothing is saved on a guess";
}

TEST_P(CapturesTest, AcceptMakesCompanyListingApplicationAndHistoryAtOnce) {
  Capture c = pasted("https://jobs.example/42");
  auto made = captures_->accept(owner_, c["id"].get<std::int64_t>(),
                                reviewed({{"role", "Platform Engineer"},
                                          {"company", "Nordlys AB"},
                                          {"location", "Stockholm"},
                                          {"closes_on", "2027-02-28"}}),
                                true, "ana");
  ASSERT_TRUE(std::holds_alternative<Record>(made));
  Record listing = std::get<Record>(made);
  EXPECT_EQ(listing["company_name"], "Nordlys AB");
  EXPECT_EQ(listing["url"], "https://jobs.example/42") << "the page's URL unless corrected";
  EXPECT_EQ(count("applications"), 1);
  auto history = db().query("SELECT kind, capture_id FROM listing_events WHERE listing_id = ?",
                            {listing["id"].get<std::int64_t>()});
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].text(0), "capture");
  EXPECT_EQ(history[0].int_at(1), c["id"].get<std::int64_t>());
  Capture after = *captures_->get(owner_, c["id"].get<std::int64_t>());
  EXPECT_EQ(after["status"], "accepted");
  EXPECT_EQ(after["listing_id"], listing["id"]);
  EXPECT_FALSE(after["application_id"].is_null());

  // Accepted once: a second accept is refused and writes nothing.
  auto again = captures_->accept(owner_, c["id"].get<std::int64_t>(),
                                 reviewed({{"role", "X"}, {"company", "Y"}}), false);
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(again));
  EXPECT_TRUE(std::get<FieldErrors>(again).has("form"));
  EXPECT_EQ(count("listings"), 1);
  EXPECT_EQ(count("companies"), 1);
}

TEST_P(CapturesTest, AnInvalidReviewWritesNothingNotEvenTheCompany) {
  Capture c = pasted("https://jobs.example/42");
  auto made = captures_->accept(owner_, c["id"].get<std::int64_t>(),
                                reviewed({{"role", ""}, {"company", "Brand New Co"}}), true);
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(made));
  EXPECT_TRUE(std::get<FieldErrors>(made).has("role"));
  EXPECT_EQ(count("companies"), 0);
  EXPECT_EQ(count("listings"), 0);
  EXPECT_EQ(count("listing_events"), 0);
  EXPECT_EQ((*captures_->get(owner_, c["id"].get<std::int64_t>()))["status"], "pending");

  auto no_company = captures_->accept(owner_, c["id"].get<std::int64_t>(),
                                      reviewed({{"role", "Engineer"}, {"company", " "}}), false);
  ASSERT_TRUE(std::holds_alternative<FieldErrors>(no_company));
  EXPECT_TRUE(std::get<FieldErrors>(no_company).has("company"));
}

TEST_P(CapturesTest, ADiscardedPageIsRecognisedNextTime) {
  Capture first = pasted("https://www.jobs.example/42/");
  ASSERT_TRUE(captures_->discard(owner_, first["id"].get<std::int64_t>()));
  Capture second = pasted("https://jobs.example/42?utm_campaign=spring");
  EXPECT_EQ(second["seen_before"], true);
  EXPECT_EQ(pasted("https://jobs.example/42", other_)["seen_before"], false)
      << "another person's captures say nothing";
}

TEST_P(CapturesTest, SomebodyElsesCaptureIsOutOfReach) {
  Capture c = pasted("https://jobs.example/42");
  const auto id = c["id"].get<std::int64_t>();
  EXPECT_FALSE(captures_->get(other_, id));
  EXPECT_FALSE(captures_->discard(other_, id));
  EXPECT_TRUE(std::holds_alternative<NotFound>(
      captures_->accept(other_, id, reviewed({{"role", "X"}, {"company", "Y"}}), false)));
  EXPECT_TRUE(captures_->list(other_, "").empty());
  EXPECT_EQ(captures_->list(owner_, "pending").size(), 1u);
}

TEST_P(CapturesTest, AFetchIsFilledOrFailedOnce) {
  auto made = captures_->from_url(owner_, "https://jobs.example/7", "api");
  ASSERT_TRUE(std::holds_alternative<Capture>(made));
  const auto id = std::get<Capture>(made)["id"].get<std::int64_t>();
  EXPECT_EQ(std::get<Capture>(made)["status"], "fetching");
  EXPECT_TRUE(captures_->fill(owner_, id, kPage));
  EXPECT_FALSE(captures_->fail(owner_, id, "too late")) << "only a fetching capture changes";
  EXPECT_EQ((*captures_->get(owner_, id))["data"]["role"], "Platform Engineer");

  auto other = std::get<Capture>(captures_->from_url(owner_, "https://jobs.example/8", "web"));
  EXPECT_TRUE(captures_->fail(owner_, other["id"].get<std::int64_t>(), "The page took too long."));
  EXPECT_EQ((*captures_->get(owner_, other["id"].get<std::int64_t>()))["error"],
            "The page took too long.");
}

TEST_P(CapturesTest, BadInputIsRefusedAndWritesNothing) {
  for (const char* url : {"ftp://jobs.example/1", "jobs.example/1", "", "http://"}) {
    auto made = captures_->from_html(owner_, url, kPage, "web");
    ASSERT_TRUE(std::holds_alternative<FieldErrors>(made)) << url;
    EXPECT_TRUE(std::get<FieldErrors>(made).has("url")) << url;
  }
  std::string huge(kMaxCapturedPageBytes + 1, 'x');
  EXPECT_TRUE(
      std::get<FieldErrors>(captures_->from_html(owner_, "https://jobs.example/1", huge, "web"))
          .has("html"));
  EXPECT_TRUE(
      std::get<FieldErrors>(captures_->from_html(owner_, "https://jobs.example/1", kPage, "mail"))
          .has("origin"));
  EXPECT_EQ(count("captures"), 0);
}

PETO_BOTH_BACKENDS(CapturesTest);

}  // namespace
}  // namespace peto::domain
