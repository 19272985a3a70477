#include "pages/insight_pages.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/timezone.h"
#include "domain/records.h"
#include "media/report_files.h"
#include "pages/record_view.h"
#include "typeset/document.h"

namespace peto::web {

namespace {

using nlohmann::json;

// A table of sources shows this many lines; the rest are counted.
constexpr std::size_t kTableLines = 20;

std::string choice(const Site& site, const Visitor& v, const std::string& field,
                   const std::string& value) {
  if (value.empty()) return site.say(v, "insights_not_recorded");
  return site.catalogue().messages(v.language).value("choice_" + field + "_" + value, value);
}

// A share as a whole percentage ("42%"); "–" when nothing was sent.
std::string percent(const json& share) {
  if (!share.is_number()) return "–";
  return std::to_string(static_cast<long long>(std::lround(share.get<double>()))) + "%";
}

std::string days_text(const Site& site, const Visitor& v, const json& days) {
  if (!days.is_number()) return "–";
  double d = days.get<double>();
  char n[32];
  std::snprintf(n, sizeof n, d == std::floor(d) ? "%.0f" : "%.1f", d);
  return site.say(v, d == 1 ? "insights_day" : "insights_days", {{"n", n}});
}

// A bar chart as templates/chart.mustache draws it: bars scaled to the
// largest value in a viewBox, so it fits a phone and a desk alike. Each bar
// is {label, value, partial}; a zero is drawn as a hairline so it shows.
struct Bar {
  std::string label;
  std::int64_t value = 0;
  bool partial = false;
};

json column_chart(const std::vector<Bar>& bars) {
  const std::size_t n = bars.size();
  // Wide enough for "Nov 30" under each bar while there are few of them.
  const int step = n <= 26 ? 44 : 20, bar = step * 2 / 3, top = 16, height = 110, label_room = 18;
  const int width = std::max<int>(280, static_cast<int>(n) * step);
  std::int64_t most = 1;
  for (const Bar& b : bars) most = std::max(most, b.value);
  // Labels under at most about a dozen bars, evenly.
  const std::size_t every = n <= 12 ? 1 : (n + 11) / 12;
  json rects = json::array(), labels = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    const int h = std::max<int>(1, static_cast<int>(height * bars[i].value / most));
    const int x = static_cast<int>(i) * step + (step - bar) / 2;
    rects.push_back(
        {{"x", x}, {"y", top + height - h}, {"w", bar}, {"h", h}, {"partial", bars[i].partial}});
    if (n <= 26)
      labels.push_back({{"x", x + bar / 2},
                        {"y", top + height - h - 3},
                        {"anchor", "middle"},
                        {"text", std::to_string(bars[i].value)}});
    if (i % every == 0)
      labels.push_back({{"x", x + bar / 2},
                        {"y", top + height + label_room - 4},
                        {"anchor", "middle"},
                        {"text", bars[i].label}});
  }
  return {
      {"width", width}, {"height", top + height + label_room}, {"bars", rects}, {"labels", labels}};
}

json row_chart(const std::vector<Bar>& bars) {
  const int step = 26, bar = 18, label_width = 130, room = 250;
  std::int64_t most = 1;
  for (const Bar& b : bars) most = std::max(most, b.value);
  json rects = json::array(), labels = json::array();
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const int y = static_cast<int>(i) * step;
    const int w = std::max<int>(1, static_cast<int>(room * bars[i].value / most));
    rects.push_back({{"x", label_width}, {"y", y}, {"w", w}, {"h", bar}, {"partial", false}});
    labels.push_back(
        {{"x", label_width - 6}, {"y", y + 13}, {"anchor", "end"}, {"text", bars[i].label}});
    labels.push_back({{"x", label_width + w + 6},
                      {"y", y + 13},
                      {"anchor", "start"},
                      {"text", std::to_string(bars[i].value)}});
  }
  return {{"width", label_width + room + 40},
          {"height", static_cast<int>(bars.size()) * step},
          {"bars", rects},
          {"labels", labels}};
}

json tally_rows(const Site& site, const Visitor& v, const json& rows, const char* field,
                const std::string& base) {
  json out = json::array();
  for (const json& row : rows) {
    if (out.size() == kTableLines) break;
    std::string name =
        field != nullptr ? choice(site, v, field, row["key"]) : row.value("name", std::string());
    if (name.empty()) name = site.say(v, "insights_not_recorded");
    json line = {{"name", name},
                 {"applied", row["applied"]},
                 {"replied", row["replied"]},
                 {"reply_rate", percent(row["reply_rate"])},
                 {"interviewed", row["interviewed"]},
                 {"interview_rate", percent(row["interview_rate"])},
                 {"offers", row["offers"]},
                 {"offer_rate", percent(row["offer_rate"])},
                 {"quiet", row["quiet"]},
                 {"quiet_rate", percent(row["quiet_rate"])}};
    if (!base.empty() && !row["key"].get<std::string>().empty())
      line["href"] = base + row["key"].get<std::string>();
    out.push_back(std::move(line));
  }
  return out;
}

json ending_rows(const Site& site, const Visitor& v, const json& rows, const char* field) {
  json out = json::array();
  for (const json& row : rows) {
    json line = row;
    line["name"] = choice(site, v, field, row["key"]);
    out.push_back(std::move(line));
  }
  return out;
}

json tag_options(const Site& site, const Visitor& v, const std::optional<std::int64_t>& chosen) {
  domain::Records records(site.db(), site.clock());
  domain::ListQuery q;
  q.limit = 200;
  q.tab = "all";
  json out = json::array();
  for (const json& t : records.list(v.account.id, domain::kind("tags"), q).items)
    out.push_back({{"id", t["id"]},
                   {"name", t.value("name", std::string())},
                   {"selected", chosen && t["id"].get<std::int64_t>() == *chosen}});
  return out;
}

// The tables by channel, company and referrer, each only when it has rows.
json tally_tables(const Site& site, const Visitor& v, const domain::Insights& f, const json& j) {
  json tables = json::array();
  auto table = [&](const char* id, const json& rows, const char* field, const std::string& base,
                   std::size_t all) {
    if (rows.empty()) return;
    tables.push_back({{"id", id},
                      {"title", site.say(v, std::string("insights_") + id)},
                      {"name_heading", site.say(v, std::string("insights_") + id + "_name")},
                      {"rows", tally_rows(site, v, rows, field, base)},
                      {"more", all > kTableLines ? all - kTableLines : 0},
                      {"has_more", all > kTableLines}});
  };
  table("by_channel", j["by_channel"], "channel", "", f.by_channel.size());
  table("by_company", j["by_company"], nullptr, "/companies/", f.by_company.size());
  table("by_contact", j["by_contact"], nullptr, "/contacts/", f.by_contact.size());
  return tables;
}

// The figures in the shape templates/insights.mustache reads.
json insights_data(const Site& site, const Visitor& v, const domain::Insights& f) {
  json j = domain::to_json(f);
  std::vector<Bar> funnel;
  json funnel_rows = json::array();
  for (const json& stage : j["funnel"]) {
    std::string label = choice(site, v, "status", stage["status"]);
    funnel.push_back({label, stage["count"].get<std::int64_t>()});
    funnel_rows.push_back(
        {{"label", label}, {"count", stage["count"]}, {"share", percent(stage["share"])}});
  }
  std::vector<Bar> months;
  json month_rows = json::array();
  for (const json& m : j["by_month"]) {
    const std::string month = m["month"].get<std::string>() + "-01";
    months.push_back({typeset::date_as(month, v.language, "MMM"), m["count"].get<std::int64_t>()});
    month_rows.push_back(
        {{"label", typeset::date_as(month, v.language, "yMMMM")}, {"count", m["count"]}});
  }
  json kinds = json::array();
  for (const json& k : j["interviews"]["by_kind"])
    kinds.push_back({{"label", k["kind"] == "timeline" ? site.say(v, "insights_kind_timeline")
                                                       : choice(site, v, "kind", k["kind"])},
                     {"count", k["count"]}});
  const json& replies = j["replies"];
  const json& interviews = j["interviews"];
  json out = {
      {"applied", f.applied},
      {"drafts", f.drafts},
      {"has_drafts", f.drafts > 0},
      {"open_now", f.open_now},
      {"nothing_sent", f.applied == 0},
      {"small_sample", f.applied > 0 && f.small_sample()},
      {"funnel_chart", row_chart(funnel)},
      {"funnel", funnel_rows},
      {"reply_rate", percent(replies["reply_rate"])},
      {"replied", f.replied},
      {"waiting", f.waiting},
      {"ghosted", f.ghosted},
      {"median_reply", days_text(site, v, replies["median_days"])},
      {"fastest_reply", days_text(site, v, replies["fastest_days"])},
      {"slowest_reply", days_text(site, v, replies["slowest_days"])},
      {"interviewed", f.interviewed},
      {"interview_rate", percent(interviews["interview_rate"])},
      {"interviews_held", f.interviews_held},
      {"interviews_ahead", f.interviews_ahead},
      {"median_interview", days_text(site, v, interviews["median_days_to_first"])},
      {"interview_kinds", kinds},
      {"ended", f.ended},
      {"has_ended", f.ended > 0},
      {"explained", f.ended_explained},
      {"ending_tables",
       json::array({{{"caption", site.say(v, "insights_endings_by_stage")},
                     {"name_heading", site.say(v, "insights_column_stage")},
                     {"rows", ending_rows(site, v, j["endings"]["by_stage"], "status")}},
                    {{"caption", site.say(v, "insights_endings_by_reason")},
                     {"name_heading", site.say(v, "field_end_reason")},
                     {"rows", ending_rows(site, v, j["endings"]["by_reason"], "end_reason")}}})},
      {"month_chart", column_chart(months)},
      {"months", month_rows},
      {"quiet_now", f.quiet_now},
      {"quiet_after_days", v.account.quiet_after_days},
      {"quiet_by_company", j["quiet"]["by_company"]}};
  out["tables"] = tally_tables(site, v, f, j);
  if (j["listings"].is_object())
    out["listings"] = {{"noted", j["listings"]["noted"]},
                       {"applied", j["listings"]["applied"]},
                       {"discarded", j["listings"]["discarded"]},
                       {"selectivity", percent(j["listings"]["selectivity"])}};
  return out;
}

Response insights_page(Site& site, Request& r, const Visitor& v) {
  auto asked = insights_query(site, r, v.account);
  const Form form = Form::from_query(r);
  json data = {{"title", site.say(v, "title_insights")},
               {"from", form.get("from")},
               {"to", form.get("to")},
               {"tags", tag_options(site, v, parse_id(form.get("tag")))}};
  const std::string today = local_date(site.clock().now_ms(), v.time_zone);
  data["presets"] =
      json::array({{{"label", site.say(v, "insights_everything")}, {"href", "/insights"}},
                   {{"label", site.say(v, "insights_last_90")},
                    {"href", "/insights?from=" + add_days(today, -89) + "&to=" + today}},
                   {{"label", site.say(v, "insights_this_year")},
                    {"href", "/insights?from=" + today.substr(0, 4) + "-01-01&to=" + today}}});
  if (auto* errors = std::get_if<domain::FieldErrors>(&asked)) {
    data["errors"] = site.error_texts(&v, r, *errors);
    return site.render(r, v, 400, "insights", std::move(data));
  }
  const auto& q = std::get<domain::InsightsQuery>(asked);
  data["figures"] = insights_data(site, v, domain::insights(site.db(), q));
  data["filtered"] = !q.from.empty() || !q.to.empty() || q.tag_id.has_value();
  return site.render(r, v, 200, "insights", std::move(data));
}

// The period's neighbours, for a month or a quarter.
json neighbours(const Site& site, const Visitor& v, const domain::Period& p) {
  if (p.kind != "month" && p.kind != "quarter") return nullptr;
  const std::string before = add_days(p.from, -1);
  const std::string after = add_days(p.to, 1);
  auto ask = [&](const std::string& day) {
    domain::PeriodAsk a;
    a.kind = p.kind;
    a.on = day.substr(0, 7);
    return std::get<domain::Period>(domain::period_from(a, day)).query();
  };
  return {{"previous", "/report?" + ask(before)},
          {"next", "/report?" + ask(after)},
          {"previous_label", site.say(v, "report_previous")},
          {"next_label", site.say(v, "report_next")}};
}

json report_data(const Site& site, const Visitor& v, const domain::Report& rep) {
  std::vector<Bar> bars;
  json weeks = json::array();
  for (const domain::ReportWeek& w : rep.weeks) {
    std::string day = typeset::date_as(w.from, v.language, "MMMd");
    bars.push_back({day, w.sent, w.partial});
    weeks.push_back({{"label", site.say(v, "report_week_of", {{"day", day}})},
                     {"sent", w.sent},
                     {"partial", w.partial},
                     {"in_progress", w.in_progress}});
  }
  json evidence = json::array();
  for (const domain::Evidence& e : rep.evidence)
    evidence.push_back({{"application_id", e.application_id},
                        {"sent_on", e.sent_on},
                        {"company", e.company},
                        {"role", e.role},
                        {"channel", e.channel.empty() ? "" : choice(site, v, "channel", e.channel)},
                        {"status", choice(site, v, "status", e.status)},
                        {"url", e.url},
                        {"last_activity_on", e.last_activity_on}});
  char per_week[32];
  std::snprintf(per_week, sizeof per_week, "%.1f", rep.per_week);
  return {{"sent", rep.sent},
          {"per_week", per_week},
          {"longest_gap", site.say(v, rep.longest_gap_days == 1 ? "insights_day" : "insights_days",
                                   {{"n", std::to_string(rep.longest_gap_days)}})},
          {"current_run", rep.current_run},
          {"longest_run", rep.longest_run},
          {"through_service", rep.through_service},
          {"drafts", rep.drafts},
          {"has_drafts", rep.drafts > 0},
          {"happened",
           {{"replies", rep.happened.replies},
            {"interviews", rep.happened.interviews},
            {"offers", rep.happened.offers},
            {"rejections", rep.happened.rejections}}},
          {"chart", column_chart(bars)},
          {"weeks", weeks},
          {"evidence", evidence},
          {"nothing_sent", rep.evidence.empty()}};
}

json period_form(const Site& site, const Visitor& v, const domain::PeriodAsk& ask,
                 const std::string& today) {
  json kinds = json::array();
  const std::string chosen = ask.kind.empty() ? (ask.from.empty() ? "month" : "custom") : ask.kind;
  for (const char* k : {"month", "quarter", "weeks", "custom"})
    kinds.push_back({{"value", k},
                     {"label", site.say(v, std::string("report_kind_") + k)},
                     {"selected", chosen == k}});
  return {{"kinds", kinds},
          {"on", ask.on.empty() ? today.substr(0, 7) : ask.on},
          {"weeks", ask.weeks.empty() ? "4" : ask.weeks},
          {"from", ask.from},
          {"to", ask.to}};
}

Response report_page(Site& site, Request& r, const Visitor& v) {
  const std::int64_t now = site.clock().now_ms();
  const std::string today = local_date(now, v.time_zone);
  const domain::PeriodAsk ask = period_ask(r);
  auto period = domain::period_from(ask, today);
  json data = {{"title", site.say(v, "title_report")}, {"form", period_form(site, v, ask, today)}};
  if (auto* errors = std::get_if<domain::FieldErrors>(&period)) {
    data["errors"] = site.error_texts(&v, r, *errors);
    return site.render(r, v, 400, "report", std::move(data));
  }
  const auto& p = std::get<domain::Period>(period);
  domain::Report rep = domain::report(site.db(), v.account.id, p, v.time_zone, now);
  json shown = report_data(site, v, rep);
  shown["period_label"] = site.say(v, "report_period_range",
                                   {{"from", typeset::long_date(p.from, v.language)},
                                    {"to", typeset::long_date(p.to, v.language)}});
  shown["query"] = p.query();
  shown["neighbours"] = neighbours(site, v, p);
  data["report"] = std::move(shown);
  return site.render(r, v, 200, "report", std::move(data));
}

Response report_download(Site& site, Request& r, const Visitor& v, const std::string& format) {
  const std::int64_t now = site.clock().now_ms();
  const std::string today = local_date(now, v.time_zone);
  auto period = domain::period_from(period_ask(r), today);
  if (std::holds_alternative<domain::FieldErrors>(period)) return report_page(site, r, v);
  domain::Report rep =
      domain::report(site.db(), v.account.id, std::get<domain::Period>(period), v.time_zone, now);
  return report_file(rep, v.account, v.language, today, format,
                     Form::from_query(r).get("bom") == "1");
}

}  // namespace

std::variant<domain::InsightsQuery, domain::FieldErrors> insights_query(
    const Site& site, const Request& r, const domain::Account& account,
    const std::string& tag_field) {
  const Form form = Form::from_query(r);
  domain::FieldErrors errors;
  domain::InsightsQuery q;
  q.owner = account.id;
  q.now = site.clock().now_ms();
  q.time_zone = account.time_zone;
  q.quiet_after_days = account.quiet_after_days;
  q.from = form.get("from");
  q.to = form.get("to");
  for (auto [field, day] : {std::pair{"from", &q.from}, std::pair{"to", &q.to}})
    if (!day->empty() && (day->size() != 10 || !parse_date_utc_ms(*day)))
      errors.add(field, "error_date");
  if (errors.empty() && !q.from.empty() && !q.to.empty() && q.to < q.from)
    errors.add("to", "error_report_backwards");
  const std::string tag = form.get(tag_field);
  if (!tag.empty()) {
    q.tag_id = parse_id(tag);
    if (!q.tag_id || !domain::owns(site.db(), "tags", *q.tag_id, account.id))
      errors.add(tag_field, "error_insights_tag");
  }
  if (!errors.empty()) return errors;
  return q;
}

domain::PeriodAsk period_ask(const Request& r) {
  const Form form = Form::from_query(r);
  return {form.get("period"), form.get("on"), form.get("weeks"), form.get("from"), form.get("to")};
}

Response report_file(const domain::Report& report, const domain::Account& account,
                     const std::string& language, const std::string& today,
                     const std::string& format, bool bom) {
  media::ReportWords words{.language = language, .person = account.email, .produced_on = today};
  Response res;
  res.status = 200;
  if (format == "pdf") {
    res.body = typeset::render_pdf(media::report_document(report, words),
                                   typeset::shipped_theme("classic"), typeset::PageSize::a4)
                   .pdf;
    res.set_header("Content-Type", "application/pdf");
  } else {
    res.body = media::report_csv(report, words, bom);
    res.set_header("Content-Type", "text/csv; charset=utf-8; header=present");
  }
  res.set_header("Content-Disposition",
                 content_disposition("attachment", media::report_file_name(report, format)));
  return res;
}

void add_insight_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add("GET", "/insights",
             site.signed_in([s](Request& r, const Visitor& v) { return insights_page(*s, r, v); }),
             "What the timeline says about the search");
  router.add("GET", "/report",
             site.signed_in([s](Request& r, const Visitor& v) { return report_page(*s, r, v); }),
             "The period report");
  router.add("GET", "/report.pdf", site.signed_in([s](Request& r, const Visitor& v) {
    return report_download(*s, r, v, "pdf");
  }),
             "The period report as an A4 PDF");
  router.add("GET", "/report.csv", site.signed_in([s](Request& r, const Visitor& v) {
    return report_download(*s, r, v, "csv");
  }),
             "The period report's applications as CSV");
}

}  // namespace peto::web
