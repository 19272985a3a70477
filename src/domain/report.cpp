#include "domain/report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "core/timezone.h"
#include "domain/insights.h"

namespace peto::domain {

namespace {

constexpr std::int64_t kDayMs = 24LL * 3600 * 1000;

// Days since 1970-01-01 of a real date between the years 1900 and 2200.
std::optional<std::int64_t> day_number(const std::string& day) {
  if (day.size() != 10 || day < "1900-01-01" || day > "2200-12-31") return std::nullopt;
  auto ms = parse_date_utc_ms(day);
  if (!ms) return std::nullopt;
  return *ms / kDayMs - (*ms % kDayMs < 0 ? 1 : 0);
}

std::optional<int> whole(const std::string& text) {
  int n = 0;
  auto read = std::from_chars(text.data(), text.data() + text.size(), n);
  if (read.ec != std::errc() || read.ptr != text.data() + text.size()) return std::nullopt;
  return n;
}

// The first day of the month after `first` ("YYYY-MM-01").
std::string next_month(const std::string& first) { return add_days(first, 31).substr(0, 8) + "01"; }

Period month_period(const std::string& first) {
  return {"month", first, add_days(next_month(first), -1)};
}

Period quarter_period(int year, int quarter) {
  const int month = (quarter - 1) * 3 + 1;
  std::string first =
      std::to_string(year) + (month < 10 ? "-0" : "-") + std::to_string(month) + "-01";
  std::string after = next_month(next_month(next_month(first)));
  return {"quarter", first, add_days(after, -1)};
}

// "YYYY-MM" as its first day, when it is a real month.
std::optional<std::string> month_of(const std::string& on) {
  std::string first = on + "-01";
  if (on.size() != 7 || !day_number(first)) return std::nullopt;
  return first;
}

std::variant<Period, FieldErrors> quarter_from(const std::string& on, const std::string& today) {
  FieldErrors errors;
  if (on.empty())
    return quarter_period(std::stoi(today.substr(0, 4)),
                          (std::stoi(today.substr(5, 2)) - 1) / 3 + 1);
  if (auto marked = on.find("-Q"); marked == 4 && on.size() == 7) {
    auto year = whole(on.substr(0, 4));
    auto quarter = whole(on.substr(6));
    if (year && quarter && *year >= 1900 && *year <= 2200 && *quarter >= 1 && *quarter <= 4)
      return quarter_period(*year, *quarter);
  } else if (auto first = month_of(on)) {
    return quarter_period(std::stoi(first->substr(0, 4)),
                          (std::stoi(first->substr(5, 2)) - 1) / 3 + 1);
  }
  errors.add("on", "error_report_quarter");
  return errors;
}

std::variant<Period, FieldErrors> custom_from(const PeriodAsk& ask) {
  FieldErrors errors;
  auto from = day_number(ask.from);
  auto to = day_number(ask.to);
  if (!from) errors.add("from", "error_date");
  if (!to) errors.add("to", "error_date");
  if (from && to && *to < *from) errors.add("to", "error_report_backwards");
  if (from && to && *to - *from + 1 > kReportMaxDays) errors.add("to", "error_report_too_long");
  if (!errors.empty()) return errors;
  return Period{"custom", ask.from, ask.to};
}

// The local day's bounds as UTC ms: [from 00:00, the day after `to` 00:00).
std::pair<std::int64_t, std::int64_t> bounds(const Period& p, const std::string& zone) {
  auto from = parse_local(p.from + " 00:00", zone);
  auto to = parse_local(add_days(p.to, 1) + " 00:00", zone);
  return {from.value_or(0), to.value_or(0)};
}

std::vector<Evidence> read_evidence(store::Conn& db, std::int64_t owner, std::int64_t from,
                                    std::int64_t to, const std::string& zone) {
  auto rows = db.query_for_values(
      "SELECT a.id, a.applied_at, a.channel, a.status, l.role, l.url, c.name,"
      " a.last_entry_at AS last_at FROM applications a JOIN listings l ON l.id = a.listing_id"
      " JOIN companies c ON c.id = l.company_id"
      " WHERE a.owner_id = ? AND a.applied_at >= ? AND a.applied_at < ?"
      " ORDER BY a.applied_at, a.id",
      {owner, from, to});
  std::vector<Evidence> out;
  out.reserve(rows.size());
  for (const auto& r : rows)
    out.push_back({.application_id = r.int_at(0),
                   .sent_on = local_date(r.int_at(1), zone),
                   .company = r.text(6),
                   .role = r.text(4),
                   .channel = r.text(2),
                   .status = r.text(3),
                   .url = r.text(5),
                   .last_activity_on = r.is_null(7) ? "" : local_date(r.int_at(7), zone)});
  return out;
}

// The weeks, the longest gap and the runs of `r`, from its evidence.
void cadence(Report& r, const std::string& today) {
  std::map<std::string, std::int64_t> per_day;
  for (const Evidence& e : r.evidence) ++per_day[e.sent_on];
  for (std::string monday = monday_of(r.period.from); monday <= r.period.to;
       monday = add_days(monday, 7)) {
    ReportWeek w{monday, add_days(monday, 6)};
    for (auto it = per_day.lower_bound(w.from); it != per_day.end() && it->first <= w.to; ++it)
      w.sent += it->second;
    w.partial = w.from < r.period.from || w.to > r.period.to;
    w.in_progress = w.from <= today && today <= w.to;
    r.weeks.push_back(w);
  }
  // A period still running is only a gap up to today.
  const std::string last = r.period.from <= today ? std::min(r.period.to, today) : r.period.to;
  const std::int64_t first_n = *day_number(r.period.from);
  const std::int64_t last_n = *day_number(last);
  std::int64_t previous = first_n - 1;
  std::int64_t gap = 0;
  for (const auto& [day, n] : per_day) {
    std::int64_t d = *day_number(day);
    if (d > last_n) break;
    gap = std::max(gap, d - previous - 1);
    previous = d;
  }
  gap = std::max(gap, last_n - previous);
  r.longest_gap_days = static_cast<int>(gap);
  const std::int64_t elapsed = std::max<std::int64_t>(1, last_n - first_n + 1);
  r.per_week = static_cast<double>(r.sent) * 7.0 / static_cast<double>(elapsed);

  int run = 0;
  for (const ReportWeek& w : r.weeks) {
    if (w.from > today) break;  // not begun: neither a run nor a break in one
    run = w.sent > 0 ? run + 1 : (w.in_progress ? run : 0);
    r.longest_run = std::max(r.longest_run, run);
  }
  r.current_run = run;
}

// How many of the person's applications have `column` (on alias `a`) in
// [from, to), among those `also` holds for.
std::int64_t applications_between(store::Conn& conn, std::int64_t owner, const char* column,
                                  std::int64_t from, std::int64_t to, const char* also = "1 = 1") {
  return conn
      .query_for_values(
          std::string("SELECT COUNT(*) AS n FROM applications a WHERE a.owner_id = ? AND ") + also +
              " AND " + column + " >= ? AND " + column + " < ?",
          {owner, from, to})[0]
      .int_at("n");
}

nlohmann::json happened_json(const Happened& h) {
  return {{"replies", h.replies},
          {"interviews", h.interviews},
          {"offers", h.offers},
          {"rejections", h.rejections}};
}

}  // namespace

int Period::days() const {
  auto a = day_number(from);
  auto b = day_number(to);
  return a && b ? static_cast<int>(*b - *a + 1) : 0;
}

std::string Period::query() const {
  if (kind == "month") return "period=month&on=" + from.substr(0, 7);
  if (kind == "quarter")
    return "period=quarter&on=" + from.substr(0, 4) + "-Q" +
           std::to_string((std::stoi(from.substr(5, 2)) - 1) / 3 + 1);
  if (kind == "weeks") return "period=weeks&weeks=" + std::to_string(days() / 7);
  return "period=custom&from=" + from + "&to=" + to;
}

std::string monday_of(const std::string& day) {
  auto n = day_number(day);
  if (!n) return day;
  // 1970-01-01 was a Thursday: day 0 is weekday 3 counting from Monday.
  const std::int64_t weekday = ((*n % 7) + 7 + 3) % 7;
  return add_days(day, -static_cast<int>(weekday));
}

std::variant<Period, FieldErrors> period_from(const PeriodAsk& ask, const std::string& today) {
  std::string kind = ask.kind;
  if (kind.empty()) kind = ask.from.empty() && ask.to.empty() ? "month" : "custom";
  FieldErrors errors;
  if (kind == "month") {
    if (ask.on.empty()) return month_period(today.substr(0, 8) + "01");
    if (auto first = month_of(ask.on)) return month_period(*first);
    errors.add("on", "error_report_month");
    return errors;
  }
  if (kind == "quarter") return quarter_from(ask.on, today);
  if (kind == "weeks") {
    auto n = ask.weeks.empty() ? std::optional<int>(4) : whole(ask.weeks);
    if (!n || *n < 1 || *n > 104) {
      errors.add("weeks", "error_report_weeks");
      return errors;
    }
    std::string monday = monday_of(today);
    return Period{"weeks", add_days(monday, -7 * (*n - 1)), add_days(monday, 6)};
  }
  if (kind == "custom") return custom_from(ask);
  errors.add("period", "error_choice");
  return errors;
}

Happened happened_between(store::Conn& conn, std::int64_t owner, std::int64_t from,
                          std::int64_t to) {
  // The first reply, offer and rejection of each application are kept on its
  // row (insight_migrations): each counts in the period it arrived in.
  auto first_in = [](const char* column) {
    return std::string("COALESCE(SUM(CASE WHEN a.") + column + " >= ? AND a." + column +
           " < ? THEN 1 ELSE 0 END), 0)";
  };
  auto rows = conn.query_for_values(
      "SELECT " + first_in("first_reply_at") + " AS replies, " + first_in("first_offer_at") +
          " AS offers, " + first_in("first_rejection_at") +
          " AS rejections,"
          " (SELECT COUNT(*) FROM interviews i WHERE i.owner_id = ? AND i.outcome = 'done'"
          " AND i.starts_at >= ? AND i.starts_at < ?) AS diary,"
          " (SELECT COUNT(*) FROM application_events e JOIN applications x"
          " ON x.id = e.application_id WHERE x.owner_id = ? AND e.occurred_at >= ?"
          " AND e.occurred_at < ? AND " +
          typed_interview_condition() +
          ") AS typed FROM applications a WHERE a.owner_id = ? AND a.applied_at IS NOT NULL",
      {from, to, from, to, from, to, owner, from, to, owner, from, to, owner});
  Happened h;
  h.replies = rows[0].int_at("replies");
  h.offers = rows[0].int_at("offers");
  h.rejections = rows[0].int_at("rejections");
  h.interviews = rows[0].int_at("diary") + rows[0].int_at("typed");
  return h;
}

Report report(store::Db& db, std::int64_t owner, const Period& period, const std::string& time_zone,
              std::int64_t now) {
  auto conn = db.acquire();
  return store::with_read(
      *conn, [&](store::Conn& c) { return read_report(c, owner, period, time_zone, now); });
}

Report read_report(store::Conn& conn, std::int64_t owner, const Period& period,
                   const std::string& time_zone, std::int64_t now) {
  Report r;
  r.period = period;
  auto [from, to] = bounds(period, time_zone);
  r.evidence = read_evidence(conn, owner, from, to, time_zone);
  r.sent = static_cast<std::int64_t>(r.evidence.size());
  for (const Evidence& e : r.evidence)
    if (e.channel == "employment_service") ++r.through_service;
  r.drafts = applications_between(conn, owner, "a.created_at", from, to, "a.applied_at IS NULL");
  r.happened = happened_between(conn, owner, from, to);
  cadence(r, local_date(now, time_zone));
  return r;
}

ThisWeek this_week(store::Conn& conn, std::int64_t owner, std::int64_t now,
                   const std::string& time_zone) {
  ThisWeek w;
  w.from = monday_of(local_date(now, time_zone));
  Period week{"weeks", w.from, add_days(w.from, 6)};
  auto [from, to] = bounds(week, time_zone);
  w.sent = applications_between(conn, owner, "a.applied_at", from, to);
  w.happened = happened_between(conn, owner, from, to);
  return w;
}

nlohmann::json to_json(const Report& r) {
  nlohmann::json weeks = nlohmann::json::array();
  for (const ReportWeek& w : r.weeks)
    weeks.push_back({{"from", w.from},
                     {"to", w.to},
                     {"sent", w.sent},
                     {"partial", w.partial},
                     {"in_progress", w.in_progress}});
  nlohmann::json evidence = nlohmann::json::array();
  for (const Evidence& e : r.evidence)
    evidence.push_back({{"application_id", e.application_id},
                        {"sent_on", e.sent_on},
                        {"company", e.company},
                        {"role", e.role},
                        {"channel", e.channel},
                        {"status", e.status},
                        {"url", e.url},
                        {"last_activity_on", e.last_activity_on}});
  return {{"period",
           {{"kind", r.period.kind},
            {"from", r.period.from},
            {"to", r.period.to},
            {"days", r.period.days()}}},
          {"sent", r.sent},
          {"per_week", static_cast<double>(std::llround(r.per_week * 10)) / 10},
          {"longest_gap_days", r.longest_gap_days},
          {"current_run_weeks", r.current_run},
          {"longest_run_weeks", r.longest_run},
          {"weeks", weeks},
          {"happened", happened_json(r.happened)},
          {"drafts_left_out", r.drafts},
          {"through_employment_service", r.through_service},
          {"evidence", evidence}};
}

}  // namespace peto::domain
