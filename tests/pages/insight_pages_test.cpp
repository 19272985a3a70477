// /insights, /report and its files over real HTTP on both backends: the
// figures and their tables, the small-sample caution, a bad period refused
// next to its field, the CSV and PDF downloads, the dashboard's "this week"
// line, and another person's search never showing.
#include <gtest/gtest.h>

#include <string>

#include "core/clock.h"
#include "domain/applications.h"
#include "tests/support/factory.h"
#include "tests/support/signed_in_pair.h"

namespace peto::web {
namespace {

class InsightPagesTest : public peto::testing::SignedInPairTest {
 protected:
  // Ana's three applications: two in November 2026 (one since rejected), one
  // this week (the clock's 2027-01-15 is a Friday; its Monday is the 11th).
  void seed() {
    const std::int64_t ana = ana_->account().id;
    testing::Factory f(db(), clock_);
    const std::int64_t acme = f.company(ana, "Acme & Sons");
    const std::int64_t beta = f.company(ana, "=Beta");
    rejected_ = f.application(ana, f.listing(ana, acme, "Backend"), "applied",
                              *parse_time("2026-11-02T09:00:00Z"));
    f.application(ana, f.listing(ana, beta, "Data"), "applied",
                  *parse_time("2026-11-20T09:00:00Z"));
    f.application(ana, f.listing(ana, acme, "Platform"), "applied",
                  *parse_time("2027-01-12T09:00:00Z"));
    domain::Records records(db(), clock_);
    domain::Applications apps(records);
    domain::StatusChange no;
    no.to = "rejected";
    ASSERT_TRUE(std::holds_alternative<domain::Record>(apps.change_status(ana, rejected_, no)));
  }
  std::int64_t rejected_ = 0;
};

TEST_P(InsightPagesTest, TheInsightsPageShowsEveryFigureWithItsTable) {
  seed();
  auto page = ana_->get("/insights");
  ASSERT_EQ(page.status, 200) << page.body;
  const std::string& b = page.body;
  EXPECT_NE(b.find("How far applications get"), std::string::npos);
  EXPECT_NE(b.find("<svg class=\"chart\""), std::string::npos) << "a chart drawn on the server";
  EXPECT_NE(
      b.find("<th scope=\"row\">Applied</th><td class=\"num\">3</td><td class=\"num\">100%</td>"),
      std::string::npos)
      << "and its numbers as a table";
  EXPECT_NE(
      b.find(
          "<th scope=\"row\">Interviewing</th><td class=\"num\">0</td><td class=\"num\">0%</td>"),
      std::string::npos);
  EXPECT_NE(b.find("Fewer than 5 applications"), std::string::npos) << "3 is a small sample";
  EXPECT_NE(b.find("<strong>33%</strong> <span class=\"muted\">(1 / 3)</span>"), std::string::npos)
      << "the rejection is a reply";
  EXPECT_NE(b.find("Acme &amp; Sons"), std::string::npos);
  EXPECT_NE(b.find("Sent by month"), std::string::npos);
  EXPECT_EQ(b.find("<script>"), std::string::npos) << "no inline script: the chart is SVG";

  auto period = ana_->get("/insights?from=2027-01-01&to=2027-01-31");
  ASSERT_EQ(period.status, 200);
  EXPECT_NE(period.body.find("(0 / 1)"), std::string::npos) << "only January's application";

  auto bad = ana_->get("/insights?from=2026-02-30");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("id=\"insights-from-error\">Enter a real date"), std::string::npos)
      << bad.body;
  auto backwards = ana_->get("/insights?from=2026-12-01&to=2026-11-01");
  EXPECT_EQ(backwards.status, 400);
  EXPECT_NE(backwards.body.find("The end comes before the start."), std::string::npos);
  EXPECT_EQ(ana_->get("/insights?tag=999999").status, 400) << "not one of ana's tags";

  auto theirs = ben_->get("/insights");
  ASSERT_EQ(theirs.status, 200);
  EXPECT_NE(theirs.body.find("No application was sent in this period"), std::string::npos);
  EXPECT_EQ(theirs.body.find("Acme"), std::string::npos);
}

TEST_P(InsightPagesTest, TheReportAndItsFiles) {
  seed();
  auto page = ana_->get("/report?period=month&on=2026-11");
  ASSERT_EQ(page.status, 200) << page.body;
  const std::string& b = page.body;
  EXPECT_NE(b.find("November 1, 2026 to November 30, 2026"), std::string::npos);
  EXPECT_NE(b.find("<dt>Applications sent</dt><dd><strong>2</strong></dd>"), std::string::npos);
  EXPECT_NE(b.find("href=\"/applications/" + std::to_string(rejected_) + "\">Backend</a>"),
            std::string::npos);
  EXPECT_EQ(b.find("Platform"), std::string::npos) << "January's is not November's";
  EXPECT_NE(b.find("href=\"/report.pdf?period=month&amp;on=2026-11\""), std::string::npos);
  EXPECT_NE(b.find("href=\"/report?period=month&amp;on=2026-10\">Previous"), std::string::npos);

  auto csv = ana_->get("/report.csv?period=month&on=2026-11&bom=1");
  ASSERT_EQ(csv.status, 200);
  EXPECT_EQ(csv.header("Content-Type").rfind("text/csv", 0), 0u);
  EXPECT_NE(csv.header("Content-Disposition").find("peto-report-2026-11-01-2026-11-30.csv"),
            std::string::npos);
  EXPECT_EQ(csv.body.rfind("\xEF\xBB\xBF\"Sent on\"", 0), 0u);
  EXPECT_NE(csv.body.find("\"'=Beta\""), std::string::npos) << "a formula escaped";
  auto pdf = ana_->get("/report.pdf?period=custom&from=2026-11-01&to=2027-01-15");
  ASSERT_EQ(pdf.status, 200);
  EXPECT_EQ(pdf.header("Content-Type"), "application/pdf");
  EXPECT_EQ(pdf.body.rfind("%PDF-", 0), 0u);

  auto bad = ana_->get("/report?period=month&on=2026-13");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("id=\"report-on-error\">Enter a month as YYYY-MM"), std::string::npos)
      << bad.body;
  EXPECT_EQ(ana_->get("/report.csv?period=weeks&weeks=0").status, 400);
  auto too_long = ana_->get("/report?period=custom&from=2020-01-01&to=2026-01-01");
  EXPECT_EQ(too_long.status, 400);
  EXPECT_NE(too_long.body.find("at most 731 days"), std::string::npos);

  auto theirs = ben_->get("/report.csv?period=month&on=2026-11");
  ASSERT_EQ(theirs.status, 200);
  EXPECT_EQ(theirs.body.find("Acme"), std::string::npos) << "ben's report is empty";
}

TEST_P(InsightPagesTest, TheDashboardSaysWhatThisWeekHeld) {
  seed();
  auto home = ana_->get("/");
  ASSERT_EQ(home.status, 200);
  EXPECT_NE(home.body.find("This week: <strong>1</strong> sent · <strong>1</strong> replies"),
            std::string::npos)
      << "the Platform application, and the rejection written today";
  EXPECT_NE(home.body.find("<a href=\"/insights\">See insights</a>"), std::string::npos);
}

PETO_BOTH_BACKENDS(InsightPagesTest);

}  // namespace
}  // namespace peto::web
