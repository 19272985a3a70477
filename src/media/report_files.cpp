#include "media/report_files.h"

#include <cstdio>

#include "core/i18n.h"
#include "formats/csv.h"

namespace peto::media {

namespace {

using typeset::Block;
using typeset::BlockKind;
using typeset::escape;

std::string say(const ReportWords& w, const std::string& key,
                const std::map<std::string, std::string>& vars = {}) {
  return Catalogue::shared().fill(w.language, key, vars);
}

std::string choice(const ReportWords& w, const std::string& field, const std::string& value) {
  return value.empty() ? "" : say(w, "choice_" + field + "_" + value);
}

std::string one_decimal(double v) {
  char out[32];
  std::snprintf(out, sizeof out, "%.1f", v);
  return out;
}

void add(typeset::Document& doc, BlockKind kind, std::string markup, std::string aside = "") {
  Block b;
  b.kind = kind;
  b.markup = std::move(markup);
  b.aside = std::move(aside);
  doc.blocks.push_back(std::move(b));
}

void line(typeset::Document& doc, const std::string& label, const std::string& value) {
  add(doc, BlockKind::entry, escape(label), escape(value));
}

void summary(typeset::Document& doc, const domain::Report& r, const ReportWords& w) {
  add(doc, BlockKind::heading, escape(say(w, "report_sent_heading")));
  line(doc, say(w, "report_sent"), std::to_string(r.sent));
  line(doc, say(w, "report_per_week"), one_decimal(r.per_week));
  line(doc, say(w, "report_longest_gap"),
       say(w, r.longest_gap_days == 1 ? "insights_day" : "insights_days",
           {{"n", std::to_string(r.longest_gap_days)}}));
  line(doc, say(w, "report_current_run"), std::to_string(r.current_run));
  line(doc, say(w, "report_longest_run"), std::to_string(r.longest_run));
  line(doc, say(w, "report_through_service"), std::to_string(r.through_service));

  add(doc, BlockKind::heading, escape(say(w, "report_happened_heading")));
  add(doc, BlockKind::small, escape(say(w, "report_happened_hint")));
  line(doc, say(w, "report_replies"), std::to_string(r.happened.replies));
  line(doc, say(w, "report_interviews"), std::to_string(r.happened.interviews));
  line(doc, say(w, "report_offers"), std::to_string(r.happened.offers));
  line(doc, say(w, "report_rejections"), std::to_string(r.happened.rejections));
}

// A bar of full blocks per week, as long as its count (at most 40).
void weeks(typeset::Document& doc, const domain::Report& r, const ReportWords& w) {
  add(doc, BlockKind::heading, escape(say(w, "report_weeks_heading")));
  for (const domain::ReportWeek& week : r.weeks) {
    std::string bar;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(week.sent, 40); ++i) bar += "\u2588";
    std::string label =
        say(w, "report_week_of", {{"day", typeset::long_date(week.from, w.language)}});
    if (week.partial) label += " *";
    add(doc, BlockKind::entry, escape(label),
        "<span font_family=\"DejaVu Sans Mono\">" + bar + "</span> " + std::to_string(week.sent));
  }
  add(doc, BlockKind::small, escape(say(w, "report_partial_hint")));
}

void evidence(typeset::Document& doc, const domain::Report& r, const ReportWords& w) {
  add(doc, BlockKind::heading, escape(say(w, "report_evidence_heading")));
  if (r.evidence.empty()) add(doc, BlockKind::paragraph, escape(say(w, "report_nothing_sent")));
  for (const domain::Evidence& e : r.evidence) {
    add(doc, BlockKind::entry, "<b>" + escape(e.company) + "</b> — " + escape(e.role),
        escape(e.sent_on));
    std::string details = choice(w, "status", e.status);
    if (!e.channel.empty()) details = choice(w, "channel", e.channel) + " · " + details;
    if (!e.url.empty()) details += " · " + e.url;
    add(doc, BlockKind::small, escape(details));
  }
  if (r.drafts > 0)
    add(doc, BlockKind::small,
        escape(say(w, "report_drafts_left_out", {{"n", std::to_string(r.drafts)}})));
}

}  // namespace

typeset::Document report_document(const domain::Report& r, const ReportWords& w) {
  typeset::Document doc;
  std::string period = say(w, "report_period_range",
                           {{"from", typeset::long_date(r.period.from, w.language)},
                            {"to", typeset::long_date(r.period.to, w.language)}});
  doc.title = say(w, "report_title") + " — " + period;
  doc.author = w.person;
  doc.language = w.language;
  add(doc, BlockKind::title, escape(say(w, "report_title")));
  add(doc, BlockKind::subtitle, escape(w.person.empty() ? period : w.person + " · " + period));
  add(doc, BlockKind::small,
      escape(
          say(w, "report_produced_on", {{"day", typeset::long_date(w.produced_on, w.language)}})));
  summary(doc, r, w);
  weeks(doc, r, w);
  evidence(doc, r, w);
  return doc;
}

std::string report_csv(const domain::Report& r, const ReportWords& w, bool bom) {
  std::string out = formats::csv_start(bom);
  out += formats::csv_row({say(w, "report_column_sent_on"), say(w, "report_column_company"),
                           say(w, "report_column_role"), say(w, "report_column_channel"),
                           say(w, "report_column_status"), say(w, "report_column_url"),
                           say(w, "report_column_last_activity")});
  for (const domain::Evidence& e : r.evidence)
    out += formats::csv_row({e.sent_on, e.company, e.role, choice(w, "channel", e.channel),
                             choice(w, "status", e.status), e.url, e.last_activity_on});
  return out;
}

std::string report_file_name(const domain::Report& r, const std::string& extension) {
  return "peto-report-" + r.period.from + "-" + r.period.to + "." + extension;
}

}  // namespace peto::media
