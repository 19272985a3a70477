// The API's insights and period report, read with the page's own helpers
// (pages/insight_pages.h) so both give the same figures for the same question.
//
//   GET /api/v1/insights?from=&to=&tag_id=
//   GET /api/v1/report?from=&to=&format=json|csv|pdf   (or period=, on=, weeks=)
#include "api/api_resources_internal.h"
#include "api/openapi.h"
#include "core/timezone.h"
#include "pages/insight_pages.h"

namespace peto::web::api_detail {
namespace {

using nlohmann::json;

json nullable(const char* type) { return {{"type", json::array({type, "null"})}}; }

json tally_schema() {
  json p = {{"key", {{"type", "string"}}}, {"name", {{"type", "string"}}}};
  for (const char* n : {"applied", "replied", "interviewed", "offers", "quiet"})
    p[n] = {{"type", "integer"}};
  for (const char* n : {"reply_rate", "interview_rate", "offer_rate", "quiet_rate"})
    p[n] = nullable("number");
  return {{"type", "array"}, {"items", {{"type", "object"}, {"properties", p}}}};
}

json counts_schema(const char* name) {
  return {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties", {{name, {{"type", "string"}}}, {"count", {{"type", "integer"}}}}},
            {"required", {name, "count"}}}}};
}

json insights_schema() {
  json ending = {{"type", "array"},
                 {"items",
                  {{"type", "object"},
                   {"properties",
                    {{"key", {{"type", "string"}}},
                     {"rejected", {{"type", "integer"}}},
                     {"withdrawn", {{"type", "integer"}}},
                     {"ghosted", {{"type", "integer"}}},
                     {"total", {{"type", "integer"}}}}}}}};
  return {
      {"type", "object"},
      {"properties",
       {{"applied", {{"type", "integer"}, {"description", "Applications sent in the period"}}},
        {"drafts", {{"type", "integer"}}},
        {"open_now", {{"type", "integer"}}},
        {"small_sample", {{"type", "boolean"}, {"description", "Fewer than 5 sent"}}},
        {"funnel",
         {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties",
             {{"status", {{"type", "string"}}},
              {"count", {{"type", "integer"}}},
              {"share", nullable("number")}}}}}}},
        {"replies",
         {{"type", "object"},
          {"properties",
           {{"replied", {{"type", "integer"}}},
            {"reply_rate", nullable("number")},
            {"waiting", {{"type", "integer"}}},
            {"ghosted", {{"type", "integer"}}},
            {"median_days", nullable("number")},
            {"fastest_days", nullable("integer")},
            {"slowest_days", nullable("integer")}}}}},
        {"interviews",
         {{"type", "object"},
          {"properties",
           {{"interviewed", {{"type", "integer"}}},
            {"interview_rate", nullable("number")},
            {"held", {{"type", "integer"}}},
            {"ahead", {{"type", "integer"}}},
            {"median_days_to_first", nullable("number")},
            {"by_kind", counts_schema("kind")}}}}},
        {"by_channel", tally_schema()},
        {"by_company", tally_schema()},
        {"by_contact", tally_schema()},
        {"endings",
         {{"type", "object"},
          {"properties",
           {{"ended", {{"type", "integer"}}},
            {"explained", {{"type", "integer"}}},
            {"by_stage", ending},
            {"by_reason", ending}}}}},
        {"by_month", counts_schema("month")},
        {"quiet",
         {{"type", "object"},
          {"properties",
           {{"count", {{"type", "integer"}}}, {"by_company", counts_schema("company")}}}}},
        {"listings",
         {{"type", json::array({"object", "null"})},
          {"description", "Listings noted in the period; null with a tag (listings have none)"}}}}},
      {"required", {"applied", "funnel", "replies", "interviews", "endings", "by_month"}}};
}

json report_schema() {
  json happened = {{"type", "object"},
                   {"properties",
                    {{"replies", {{"type", "integer"}}},
                     {"interviews", {{"type", "integer"}}},
                     {"offers", {{"type", "integer"}}},
                     {"rejections", {{"type", "integer"}}}}}};
  json week = {{"type", "object"},
               {"properties",
                {{"from", {{"type", "string"}, {"format", "date"}}},
                 {"to", {{"type", "string"}, {"format", "date"}}},
                 {"sent", {{"type", "integer"}}},
                 {"partial", {{"type", "boolean"}}},
                 {"in_progress", {{"type", "boolean"}}}}}};
  json evidence = {{"type", "object"},
                   {"properties",
                    {{"application_id", {{"type", "integer"}}},
                     {"sent_on", {{"type", "string"}, {"format", "date"}}},
                     {"company", {{"type", "string"}}},
                     {"role", {{"type", "string"}}},
                     {"channel", {{"type", "string"}}},
                     {"status", {{"type", "string"}}},
                     {"url", {{"type", "string"}}},
                     {"last_activity_on", {{"type", "string"}}}}}};
  return {{"type", "object"},
          {"properties",
           {{"period",
             {{"type", "object"},
              {"properties",
               {{"kind", {{"type", "string"}}},
                {"from", {{"type", "string"}, {"format", "date"}}},
                {"to", {{"type", "string"}, {"format", "date"}}},
                {"days", {{"type", "integer"}}}}}}},
            {"sent", {{"type", "integer"}}},
            {"per_week", {{"type", "number"}}},
            {"longest_gap_days", {{"type", "integer"}}},
            {"current_run_weeks", {{"type", "integer"}}},
            {"longest_run_weeks", {{"type", "integer"}}},
            {"weeks", {{"type", "array"}, {"items", week}}},
            {"happened", happened},
            {"drafts_left_out", {{"type", "integer"}}},
            {"through_employment_service", {{"type", "integer"}}},
            {"evidence", {{"type", "array"}, {"items", evidence}}}}},
          {"required", {"period", "sent", "weeks", "happened", "evidence"}}};
}

void add_insights(Api& api, const Shared& res) {
  json op = api_operation("getInsights", "What the timeline says about the search", "insights");
  op["description"] =
      "Applications sent in the period (local days of the person's time zone, both ends "
      "included), followed through everything that happened to them since. Shares are "
      "percentages with one decimal; below 5 applications small_sample is true.";
  api_query_parameter(op, "from", {{"type", "string"}, {"format", "date"}}, "First day");
  api_query_parameter(op, "to", {{"type", "string"}, {"format", "date"}}, "Last day");
  api_query_parameter(op, "tag_id", {{"type", "integer"}, {"minimum", 1}},
                      "Only the applications with this tag");
  api_answer(op, 200, "The figures", insights_schema());
  api.add({.method = "GET",
           .pattern = "/api/v1/insights",
           .area = "applications",
           .write = false,
           .operation = op,
           .handler =
               [res](ApiCall& c) {
                 auto q = insights_query(res->site, c.request, c.bearer.account, "tag_id");
                 if (auto* errors = std::get_if<domain::FieldErrors>(&q))
                   return res->api->invalid(c.request, *errors);
                 return Response::json(
                     200, domain::to_json(domain::insights(res->site.db(),
                                                           std::get<domain::InsightsQuery>(q))));
               },
           .query = {"from", "to", "tag_id"}});
}

void add_report(Api& api, const Shared& res) {
  json op =
      api_operation("getReport", "The period report: what was sent and what came back", "insights");
  op["description"] =
      "The period is from/to (local days, both included), or period=month&on=YYYY-MM, "
      "period=quarter&on=YYYY-Qn, period=weeks&weeks=N; without any, the month in progress. "
      "format=csv gives the applications as RFC 4180 CSV (bom=1 adds a byte order mark for "
      "spreadsheet programs; cells a spreadsheet would run as formulas start with an "
      "apostrophe); format=pdf an A4 PDF.";
  api_query_parameter(op, "from", {{"type", "string"}, {"format", "date"}}, "First day");
  api_query_parameter(op, "to", {{"type", "string"}, {"format", "date"}}, "Last day");
  api_query_parameter(op, "period",
                      {{"type", "string"}, {"enum", {"month", "quarter", "weeks", "custom"}}},
                      "The kind of period");
  api_query_parameter(op, "on", {{"type", "string"}}, "The month (YYYY-MM) or quarter (YYYY-Qn)");
  api_query_parameter(op, "weeks", {{"type", "integer"}, {"minimum", 1}, {"maximum", 104}},
                      "How many weeks, ending with this one");
  api_query_parameter(op, "format", {{"type", "string"}, {"enum", {"json", "csv", "pdf"}}},
                      "json (the default), csv or pdf");
  api_query_parameter(op, "bom", {{"type", "string"}, {"enum", {"0", "1"}}},
                      "CSV only: 1 starts the file with a UTF-8 byte order mark");
  api_answer(op, 200, "The report", report_schema());
  op["responses"]["200"]["content"]["text/csv"] = {{"schema", {{"type", "string"}}}};
  op["responses"]["200"]["content"]["application/pdf"] = {
      {"schema", {{"type", "string"}, {"format", "binary"}}}};
  api.add({.method = "GET",
           .pattern = "/api/v1/report",
           .area = "applications",
           .write = false,
           .operation = op,
           .handler =
               [res](ApiCall& c) {
                 const std::string format = c.request.query_param("format").value_or("json");
                 if (format != "json" && format != "csv" && format != "pdf") {
                   domain::FieldErrors errors;
                   errors.add("format", "error_choice");
                   return res->api->invalid(c.request, errors);
                 }
                 const domain::Account& account = c.bearer.account;
                 const std::int64_t now = res->site.clock().now_ms();
                 const std::string today = local_date(now, account.time_zone);
                 auto period = domain::period_from(period_ask(c.request), today);
                 if (auto* errors = std::get_if<domain::FieldErrors>(&period))
                   return res->api->invalid(c.request, *errors);
                 domain::Report report =
                     domain::report(res->site.db(), account.id, std::get<domain::Period>(period),
                                    account.time_zone, now);
                 if (format == "json") return Response::json(200, domain::to_json(report));
                 const std::string language = account.language.empty() ? "en" : account.language;
                 return report_file(report, account, language, today, format,
                                    c.request.query_param("bom").value_or("") == "1");
               },
           .query = {"from", "to", "period", "on", "weeks", "format", "bom"}});
}

}  // namespace

void add_insight_api(Api& api, const Shared& res) {
  add_insights(api, res);
  add_report(api, res);
}

}  // namespace peto::web::api_detail
