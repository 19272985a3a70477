// /api/v1/captures on both backends: a page posted with its HTML is read at
// once, a bare link waits for its errand (made in the same transaction), a
// retry with the same Idempotency-Key makes nothing new, and the account's
// 30 captures an hour are shared with the web form.
#include <gtest/gtest.h>

#include "domain/captures.h"
#include "tests/support/api_fixture.h"

namespace peto::testing {
namespace {

using nlohmann::json;

const char* kPage = R"(<html><head><script type="application/ld+json">
{"@context":"https://schema.org","@type":"JobPosting","title":"Backend Developer",
 "hiringOrganization":{"@type":"Organization","name":"Tallinn Tarkvara OÜ"}}
</script></head><body><h1>Backend Developer</h1></body></html>)";

class CapturesApiTest : public ApiTest {};

TEST_P(CapturesApiTest, APostedPageIsReadAndALinkWaitsForItsErrand) {
  ApiClient ana = client(ana_, {"captures:write"});
  ApiReply read = ana.post(std::string(kApi) + "/captures",
                           {{"url", "https://jobs.example/be-1"}, {"html", kPage}});
  ASSERT_EQ(read.status, 201) << read.text;
  EXPECT_EQ(read.body["status"], "pending");
  EXPECT_EQ(read.body["origin"], "api");
  EXPECT_EQ(read.body["data"]["role"], "Backend Developer");
  EXPECT_EQ(read.body["data"]["company"], "Tallinn Tarkvara OÜ");
  EXPECT_EQ(count("tasks"), 0) << "a posted page is never fetched";
  EXPECT_TRUE(read.body["page_sha256"].is_string()) << "its source is kept";

  ApiReply link = ana.post(std::string(kApi) + "/captures", {{"url", "https://jobs.example/be-2"}});
  ASSERT_EQ(link.status, 201) << link.text;
  EXPECT_EQ(link.body["status"], "fetching");
  EXPECT_EQ(count("tasks"), 1);
  EXPECT_EQ(link.header("Location"),
            "/api/v1/captures/" + std::to_string(link.body["id"].get<std::int64_t>()));

  ApiReply list = ana.get(std::string(kApi) + "/captures?status=pending");
  ASSERT_EQ(list.status, 200) << list.text;
  ASSERT_EQ(list.body["items"].size(), 1u);
  EXPECT_EQ(list.body["items"][0]["id"], read.body["id"]);
  EXPECT_EQ(ana.get(std::string(kApi) + "/captures/" +
                    std::to_string(link.body["id"].get<std::int64_t>()))
                .body["url"],
            "https://jobs.example/be-2");
  EXPECT_TRUE(is_problem(ana.get(std::string(kApi) + "/captures?status=maybe"), 400));
}

TEST_P(CapturesApiTest, ARetryWithTheSameKeyMakesNothingNew) {
  ApiClient ana = client(ana_, {"captures:write"});
  json body = {{"url", "https://jobs.example/be-3"}};
  ApiReply first = ana.post(std::string(kApi) + "/captures", body, {{"Idempotency-Key", "k-1"}});
  ApiReply again = ana.post(std::string(kApi) + "/captures", body, {{"Idempotency-Key", "k-1"}});
  ASSERT_EQ(first.status, 201) << first.text;
  ASSERT_EQ(again.status, 201) << again.text;
  EXPECT_EQ(again.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(again.body["id"], first.body["id"]);
  EXPECT_EQ(count("captures"), 1);
  EXPECT_EQ(count("tasks"), 1);
}

TEST_P(CapturesApiTest, BadBodiesAreRefusedAndWriteNothing) {
  ApiClient ana = client(ana_, {"captures:write"});
  const std::string captures = std::string(kApi) + "/captures";
  EXPECT_TRUE(names_field(ana.post(captures, json::object()), "url"));
  EXPECT_TRUE(names_field(ana.post(captures, {{"url", 5}}), "url"));
  EXPECT_TRUE(names_field(ana.post(captures, {{"url", "ftp://jobs.example/1"}}), "url"));
  EXPECT_TRUE(names_field(ana.post(captures, {{"url", "javascript:alert(1)"}}), "url"));
  EXPECT_TRUE(names_field(ana.post(captures, {{"url", "https://jobs.example/1"}, {"x", 1}}), "x"));
  EXPECT_TRUE(
      names_field(ana.post(captures, {{"url", "https://jobs.example/1"}, {"html", 7}}), "html"));
  EXPECT_EQ(count("captures"), 0);
  EXPECT_EQ(count("tasks"), 0);
}

TEST_P(CapturesApiTest, ThirtyAnHourAcrossWebAndApi) {
  ApiClient ana = client(ana_, {"captures:write"});
  for (int i = 0; i < 30; ++i) {
    ApiReply r = ana.post(std::string(kApi) + "/captures",
                          {{"url", "https://jobs.example/" + std::to_string(i)}, {"html", kPage}});
    ASSERT_EQ(r.status, 201) << i << ": " << r.text;
  }
  ApiReply refused = ana.post(std::string(kApi) + "/captures",
                              {{"url", "https://jobs.example/31"}, {"html", kPage}});
  EXPECT_TRUE(is_problem(refused, 429));
  EXPECT_FALSE(refused.header("Retry-After").empty());
  EXPECT_EQ(count("captures"), 30);
  ApiClient reader = client(ana_, {"captures:read"});
  EXPECT_TRUE(is_problem(
      reader.post(std::string(kApi) + "/captures", {{"url", "https://jobs.example/32"}}), 403));
}

PETO_BOTH_BACKENDS(CapturesApiTest);

}  // namespace
}  // namespace peto::testing
