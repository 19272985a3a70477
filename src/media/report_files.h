// The period report (domain/report.h) as files a person hands over: an A4
// PDF typeset like a CV (typeset/document.h) and a CSV of the evidence list
// (formats/csv.h), both in the person's language.
//
//   ReportWords words{.language = "fr", .person = "Ana Lima", .produced_on = "2026-12-07"};
//   typeset::Rendered pdf = typeset::render_pdf(report_document(r, words), theme, PageSize::a4);
//   std::string csv = report_csv(r, words, /*bom=*/true);
#pragma once

#include <string>

#include "domain/report.h"
#include "typeset/document.h"

namespace peto::media {

struct ReportWords {
  std::string language = "en";  // the catalogue's, for the words and the dates
  std::string person;           // who the report is about (the account's address)
  std::string produced_on;      // the local day it was made ("YYYY-MM-DD")
};

// The report laid out: a title, the summary, what happened, a bar per
// week, and the applications sent, one entry each.
typeset::Document report_document(const domain::Report& r, const ReportWords& words);

// The evidence list: a header row, then one row per application sent.
std::string report_csv(const domain::Report& r, const ReportWords& words, bool bom);

// "peto-report-2026-11-01-2026-11-30.pdf" for `extension` "pdf".
std::string report_file_name(const domain::Report& r, const std::string& extension);

}  // namespace peto::media
