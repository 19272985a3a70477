// The period report's files as their readers see them: the CSV read back by
// Python's csv module (RFC 4180) with every formula cell escaped the way
// LibreOffice and Excel need, and the PDF checked by qpdf and pdftotext.
#include "media/report_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "formats/csv.h"
#include "tests/support/backends.h"

namespace peto::media {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

domain::Report sample() {
  domain::Report r;
  r.period = {"month", "2026-11-01", "2026-11-30"};
  r.sent = 3;
  r.per_week = 0.7;
  r.longest_gap_days = 12;
  r.current_run = 1;
  r.longest_run = 2;
  r.drafts = 2;
  r.happened = {.replies = 1, .interviews = 1, .offers = 0, .rejections = 1};
  r.weeks = {{"2026-10-26", "2026-11-01", 0, true, false},
             {"2026-11-02", "2026-11-08", 2, false, false},
             {"2026-11-09", "2026-11-15", 1, false, false}};
  r.evidence = {{.application_id = 1,
                 .sent_on = "2026-11-02",
                 .company = "=HYPERLINK(\"http://evil.example\",\"Click\")",
                 .role = "Engineer, \"platform\"\nteam",
                 .channel = "job_board",
                 .status = "applied",
                 .url = "https://jobs.example/1",
                 .last_activity_on = "2026-11-02"},
                {.application_id = 2,
                 .sent_on = "2026-11-03",
                 .company = "+Plus Ltd",
                 .role = "-5 developer",
                 .channel = "",
                 .status = "rejected",
                 .url = "",
                 .last_activity_on = ""},
                {.application_id = 3,
                 .sent_on = "2026-11-10",
                 .company = "@Société Générale",
                 .role = "Analyste données",
                 .channel = "employment_service",
                 .status = "interviewing",
                 .url = "",
                 .last_activity_on = "2026-11-20"}};
  return r;
}

class ReportFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("peto-report-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  static std::string tool(const std::string& cmd) {
    std::string out;
    EXPECT_EQ(peto::testing::run_command(cmd, &out), 0) << cmd << "\n" << out;
    return out;
  }

  fs::path dir_;
};

TEST_F(ReportFilesTest, TheCsvReadsBackInPythonWithFormulasEscaped) {
  ReportWords words{.language = "en", .person = "ana@example.com", .produced_on = "2026-12-07"};
  std::string csv = report_csv(sample(), words, true);
  ASSERT_EQ(csv.rfind("\xEF\xBB\xBF", 0), 0u) << "the byte order mark first";
  EXPECT_EQ(report_csv(sample(), words, false).rfind("\"Sent on\"", 0), 0u)
      << "and only on request";
  std::string path = write("report.csv", csv);
  std::string out = tool(
      "python3 -c 'import csv, json, sys\n"
      "with open(sys.argv[1], newline=\"\", encoding=\"utf-8-sig\") as f:\n"
      "    print(json.dumps(list(csv.reader(f, strict=True))))' '" +
      path + "'");
  json rows = json::parse(out);
  ASSERT_EQ(rows.size(), 4u) << "a header and one row per application";
  EXPECT_EQ(rows[0], json({"Sent on", "Company", "Role", "Channel", "Status now", "Listing address",
                           "Last activity"}));
  EXPECT_EQ(rows[1][0], "2026-11-02");
  EXPECT_EQ(rows[1][1], "'=HYPERLINK(\"http://evil.example\",\"Click\")") << "not a formula";
  EXPECT_EQ(rows[1][2], "Engineer, \"platform\"\nteam") << "commas, quotes and line breaks kept";
  EXPECT_EQ(rows[1][3], "Job board");
  EXPECT_EQ(rows[1][4], "Applied");
  EXPECT_EQ(rows[2][1], "'+Plus Ltd");
  EXPECT_EQ(rows[2][2], "'-5 developer");
  EXPECT_EQ(rows[2][3], "") << "no channel recorded";
  EXPECT_EQ(rows[3][1], "'@Société Générale") << "UTF-8 through";
  EXPECT_EQ(rows[3][3], "Employment service");
  // Every record ends CRLF, as RFC 4180 says, and every field is quoted.
  EXPECT_NE(csv.find("\"Last activity\"\r\n"), std::string::npos);
  EXPECT_EQ(formats::neutralise_formula("\tcmd"), "'\tcmd");
  EXPECT_EQ(formats::neutralise_formula("Acme"), "Acme");
  EXPECT_EQ(formats::csv_row({}), "\r\n");
}

TEST_F(ReportFilesTest, ThePdfIsAnA4DocumentWithEveryApplicationInIt) {
  ReportWords words{.language = "en", .person = "ana@example.com", .produced_on = "2026-12-07"};
  typeset::Rendered r = typeset::render_pdf(
      report_document(sample(), words), typeset::shipped_theme("classic"), typeset::PageSize::a4);
  std::string pdf = write("report.pdf", r.pdf);
  EXPECT_NE(tool("qpdf --check '" + pdf + "'").find("No syntax or stream encoding errors"),
            std::string::npos);
  std::string info = tool("pdfinfo '" + pdf + "'");
  EXPECT_NE(info.find("(A4)"), std::string::npos) << info;
  EXPECT_NE(info.find("Author:          ana@example.com"), std::string::npos) << info;
  std::string text =
      std::regex_replace(tool("pdftotext -enc UTF-8 '" + pdf + "' -"), std::regex("\\s+"), " ");
  // The headings in their order; pdftotext reads a line's far-edge figure
  // after its neighbours', so the rest is looked for anywhere.
  std::size_t at = 0;
  for (const char* heading :
       {"Job search report", "November 1, 2026 to November 30, 2026", "What you sent",
        "What came back in the period", "Week by week", "The applications",
        "Drafts started in the period and never sent are left out: 2."}) {
    std::size_t found = text.find(heading, at);
    ASSERT_NE(found, std::string::npos) << "\"" << heading << "\" after " << at << " in:\n" << text;
    at = found;
  }
  for (const char* part : {"Longest gap without sending", "12 days", "Week of November 2, 2026",
                           "+Plus Ltd", "-5 developer", "Rejected", "@Société Générale",
                           "Analyste données", "Employment service · Interviewing"})
    EXPECT_NE(text.find(part), std::string::npos) << part << " in:\n" << text;
  EXPECT_EQ(report_file_name(sample(), "pdf"), "peto-report-2026-11-01-2026-11-30.pdf");
}

}  // namespace
}  // namespace peto::media
