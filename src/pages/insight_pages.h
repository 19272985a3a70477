// /insights and /report: what the timeline says about a person's search
// (domain/insights.h), and the period report for an employment office
// (domain/report.h) with its PDF and CSV (media/report_files.h). The API
// (api/api_insights.cpp) reads its questions and writes its files with the
// helpers here, so the page and the API never disagree.
//
//   GET /insights?from=&to=&tag=          the figures, charts and tables
//   GET /report?period=month&on=2026-11   the report; also quarter, weeks, custom
//   GET /report.pdf?…, /report.csv?…&bom=1
#pragma once

#include <string>
#include <variant>

#include "domain/field_errors.h"
#include "domain/insights.h"
#include "domain/report.h"
#include "http/router.h"
#include "pages/site.h"

namespace peto::web {

void add_insight_routes(Router& router, Site& site);

// The insights asked for by ?from=&to=&tag= (tag: "tag" or `tag_field`),
// for `account` now; field errors for an impossible day, a range backwards
// or a tag that is not the person's.
std::variant<domain::InsightsQuery, domain::FieldErrors> insights_query(
    const Site& site, const Request& r, const domain::Account& account,
    const std::string& tag_field = "tag");

// ?period=&on=&weeks=&from=&to= as asked.
domain::PeriodAsk period_ask(const Request& r);

// The report as a file: "pdf" (A4) or "csv" (with a byte order mark when
// `bom`), named after its period, in `language`.
Response report_file(const domain::Report& report, const domain::Account& account,
                     const std::string& language, const std::string& today,
                     const std::string& format, bool bom);

}  // namespace peto::web
