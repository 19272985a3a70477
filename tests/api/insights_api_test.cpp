// The insights and the period report through /api/v1 on both backends: the
// same figures as the pages, the report as JSON, CSV and PDF, bad questions
// refused as problem+json, the scope asked for, and another person's search
// never counted.
#include <gtest/gtest.h>

#include "core/clock.h"
#include "domain/api_tokens.h"
#include "tests/support/api_fixture.h"
#include "tests/support/factory.h"

namespace peto::testing {
namespace {

using nlohmann::json;

class InsightsApiTest : public ApiTest {
 protected:
  // Two applications of ana's sent in November 2026, one of them later offered.
  void seed_search() {
    Factory f(db(), clock_);
    const std::int64_t acme = f.company(ana_, "Acme");
    f.application(ana_, f.listing(ana_, acme, "Backend"), "applied",
                  *parse_time("2026-11-02T09:00:00Z"));
    f.application(ana_, f.listing(ana_, acme, "Data"), "offer",
                  *parse_time("2026-11-09T09:00:00Z"));
  }
};

TEST_P(InsightsApiTest, TheFiguresAndTheReport) {
  seed_search();
  ApiClient ana = client(ana_, {"applications:read"});
  ApiReply figures = ana.get(std::string(kApi) + "/insights");
  ASSERT_EQ(figures.status, 200) << figures.text;
  EXPECT_EQ(figures.body["applied"], 2);
  EXPECT_EQ(figures.body["small_sample"], true);
  EXPECT_EQ(figures.body["funnel"][5]["status"], "offer");
  EXPECT_EQ(figures.body["funnel"][5]["count"], 1);
  EXPECT_EQ(figures.body["funnel"][5]["share"], 50.0);
  EXPECT_EQ(figures.body["by_month"][0], json({{"month", "2026-11"}, {"count", 2}}));
  EXPECT_EQ(ana.get(std::string(kApi) + "/insights?from=2026-11-05").body["applied"], 1);

  ApiReply report = ana.get(std::string(kApi) + "/report?from=2026-11-01&to=2026-11-30");
  ASSERT_EQ(report.status, 200) << report.text;
  EXPECT_EQ(report.body["sent"], 2);
  EXPECT_EQ(report.body["period"]["kind"], "custom");
  EXPECT_EQ(report.body["evidence"][1]["role"], "Data");
  EXPECT_EQ(report.body["happened"]["offers"], 1);
  EXPECT_EQ(ana.get(std::string(kApi) + "/report?period=month&on=2026-11").body["sent"], 2);

  ApiReply csv = ana.get(std::string(kApi) + "/report?from=2026-11-01&to=2026-11-30&format=csv");
  ASSERT_EQ(csv.status, 200);
  EXPECT_EQ(csv.media_type(), "text/csv");
  EXPECT_EQ(csv.text.rfind("\"Sent on\",\"Company\"", 0), 0u) << csv.text;
  ApiReply pdf = ana.get(std::string(kApi) + "/report?from=2026-11-01&to=2026-11-30&format=pdf");
  ASSERT_EQ(pdf.status, 200);
  EXPECT_EQ(pdf.media_type(), "application/pdf");
  EXPECT_EQ(pdf.text.rfind("%PDF-", 0), 0u);

  ApiClient ben = client(ben_, {"applications:read"});
  EXPECT_EQ(ben.get(std::string(kApi) + "/insights").body["applied"], 0);
  ApiReply empty = ben.get(std::string(kApi) + "/report?from=2026-11-01&to=2026-11-30");
  EXPECT_EQ(empty.body["sent"], 0) << "the report of an empty account is empty";
  EXPECT_TRUE(empty.body["evidence"].empty());
}

TEST_P(InsightsApiTest, BadQuestionsAreRefused) {
  ApiClient ana = client(ana_, {"applications:read"});
  for (const char* target :
       {"/insights?from=2026-02-30", "/insights?from=2026-12-01&to=2026-11-01",
        "/insights?tag_id=999999", "/report?from=2026-11-01", "/report?format=xml",
        "/report?period=weeks&weeks=200", "/report?from=2020-01-01&to=2026-01-01"}) {
    ApiReply r = ana.get(std::string(kApi) + target);
    EXPECT_EQ(r.status, 422) << target << ": " << r.text;
    EXPECT_EQ(r.media_type(), "application/problem+json") << target;
  }
  EXPECT_EQ(ana.get(std::string(kApi) + "/insights?colour=red").status, 400);
  ApiClient listings = client(ana_, {"listings:read"});
  EXPECT_EQ(listings.get(std::string(kApi) + "/insights").status, 403);
  EXPECT_EQ(listings.get(std::string(kApi) + "/report").status, 403);
}

PETO_BOTH_BACKENDS(InsightsApiTest);

}  // namespace
}  // namespace peto::testing
